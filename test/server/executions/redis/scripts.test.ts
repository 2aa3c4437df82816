import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ExecutionsConfig } from "../../../../src/config/schema/index.js";
import { recordOutcome } from "../../../../src/server/executions/redis/outcomes.js";
import { executionKeys, persistently } from "../../../../src/server/executions/redis/records.js";
import { withExecutionCommands, type ExecutionCommands } from "../../../../src/server/executions/redis/scripts.js";
import { submitArgs, submitCallOf } from "../../../../src/server/executions/redis/submit.js";

// The run's redis-server; a namespace of its own keeps these keys apart from other files'.
const key = executionKeys(`tnx-scripts-${randomUUID()}`);
const config: ExecutionsConfig = {
  maxTimeoutMs: 60_000,
  retentionMs: 60_000,
  maxActivePerCaller: 100,
  maxRetainedPerCaller: 100,
  lostAfterMs: 30_000,
};
let redis: Redis & ExecutionCommands;
beforeAll(() => {
  redis = withExecutionCommands(new Redis(inject("redisUrl")));
});
afterAll(() => {
  redis?.disconnect();
});

/** A queued execution, written by the submit script as a submit writes it; its id. */
async function queued(): Promise<string> {
  const id = randomUUID().replaceAll("-", "");
  const call = submitCallOf(key, config, { owner: "alice", tool: "echo", requestId: "r", timeoutMs: 1_000 }, id, "fp");
  expect(await redis.tnxSubmit(...submitArgs(call))).toEqual(["created"]);
  return id;
}

const start = (id: string, run: string) => redis.tnxStart(key.record(id), new Date().toISOString(), run);

describe("the start script", () => {
  it("turns a queued execution running as the run that started it", async () => {
    const id = await queued();
    expect(await start(id, "run-a")).toBe(1);
    expect(await redis.hmget(key.record(id), "status", "run")).toEqual(["running", "run-a"]);
  });

  it("answers 1 again to the same run (a retried start whose reply was lost), 0 to any other", async () => {
    const id = await queued();
    expect(await start(id, "run-a")).toBe(1);
    expect(await start(id, "run-a")).toBe(1);
    // A worker that took the job again (its lock lapsed, or a failover lost the job's move) must not run it twice.
    expect(await start(id, "run-b")).toBe(0);
    expect(await redis.hget(key.record(id), "run")).toBe("run-a");
  });

  it("answers 0 for an execution cancelled while queued, one that ended, and one that is gone", async () => {
    const cancelled = await queued();
    const error = { type: "about:blank", title: "Cancelled", status: 409, code: "CANCELLED", detail: "", requestId: "" };
    const job = { id: cancelled, owner: "alice", tool: "echo", body: {}, requestId: "" };
    expect(await recordOutcome(redis, key, config, job, { status: "cancelled", error })).toBe(true);
    expect(await start(cancelled, "run-a")).toBe(0);

    const ended = await queued();
    expect(await start(ended, "run-a")).toBe(1);
    const result = { output: "done", isError: false };
    expect(await recordOutcome(redis, key, config, { ...job, id: ended }, { status: "succeeded", result })).toBe(true);
    // Even for the run that started it: a late retry must not turn a finished execution running again.
    expect(await start(ended, "run-a")).toBe(0);
    expect(await redis.hget(key.record(ended), "status")).toBe("succeeded");

    expect(await start("0".repeat(32), "run-a")).toBe(0);
  });
});

describe("persistently", () => {
  it("retries a failing step with growing pauses until it succeeds", async () => {
    const at: number[] = [];
    const retried: number[] = [];
    const value = await persistently(
      async () => {
        at.push(performance.now());
        if (at.length < 4) throw new Error("Stream isn't writeable");
        return "ok";
      },
      5_000,
      (_err, attempt) => retried.push(attempt),
    );
    expect(value).toBe("ok");
    expect(retried).toEqual([0, 1, 2]);
    const pauses = at.slice(1).map((t, i) => t - (at[i] ?? 0));
    // 100, 200, 400 ms (timers fire a little early or late).
    for (const [i, pause] of pauses.entries()) expect(pause).toBeGreaterThanOrEqual(100 * 2 ** i - 5);
  });

  it("gives up with the last failure once the next try would start past withinMs", async () => {
    let tries = 0;
    const started = Date.now();
    await expect(
      persistently(
        async () => {
          tries++;
          throw new Error(`down ${tries}`);
        },
        350,
        () => undefined,
      ),
    ).rejects.toThrow("down 3");
    // Tries at 0, 100 and 300 ms; the next would be at 700 ms.
    expect(tries).toBe(3);
    expect(Date.now() - started).toBeLessThan(700);
  });
});
