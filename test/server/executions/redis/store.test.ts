import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { defineTool } from "../../../../src/core/define-tool.js";
import {
  acceptedExecution,
  longPollChecks,
  pollUntil,
  readEvents,
  retentionChecks,
  submit,
  type ExecutionBody,
} from "../../../helpers/executions.js";
import { startRedis } from "../../../helpers/redis.js";
import { startServer, type TestServer } from "../../../helpers/server.js";
import { testTools, type SignalLog } from "../../../helpers/tools.js";

// Database 1 of the run's redis-server: other files use other databases, so queues never mix.
const url = `${inject("redisUrl")}/1`;
const logA: SignalLog = {};
const logB: SignalLog = {};
let a: TestServer;
let b: TestServer;

const steps = defineTool({
  name: "steps",
  description: "reports progress n times, then answers",
  inputSchema: { type: "object", properties: { n: { type: "integer" } } },
  run: async ({ n }, ctx) => {
    for (let i = 1; i <= Number(n); i++) {
      ctx.onProgress?.({ progress: i, total: Number(n) });
      await new Promise((r) => setTimeout(r, 20));
    }
    return `did ${String(n)}`;
  },
});

beforeAll(async () => {
  const config = { redis: { url }, executions: { maxActivePerCaller: 5 } };
  a = await startServer({ config, tools: [...testTools(logA), steps] });
  b = await startServer({ config, tools: [...testTools(logB), steps] });
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

describe("executions on Redis, two servers", () => {
  it("submit on A, poll on B → succeeded", async () => {
    const e = await acceptedExecution(await submit(a.url, "echo", { arguments: { text: "shared" } }));
    const done = await pollUntil(b.url, e.id, ["succeeded"]);
    expect(done.result).toEqual({ output: "shared", isError: false });
  });

  it("Prefer: wait on B answers when the execution submitted on A ended or asks for input, or as it is after the wait", async () => {
    await longPollChecks(a.url, b.url);
  });

  it("many followers of one execution share the subscriber's listeners (no MaxListenersExceededWarning)", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const e = await acceptedExecution(await submit(a.url, "slow", { arguments: { ms: 20_000 } }));
      const waits = Array.from({ length: 12 }, () => fetch(`${b.url}/executions/${e.id}`, { headers: { prefer: "wait=1" } }));
      for (const res of await Promise.all(waits)) expect(res.status).toBe(200);
      await fetch(`${a.url}/executions/${e.id}/cancel`, { method: "POST" });
      await new Promise((r) => setImmediate(r));
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("events on B: execution, progress…, result; Last-Event-ID resumes", async () => {
    const e = await acceptedExecution(await submit(a.url, "steps", { arguments: { n: 3 } }));
    const { events } = await readEvents(b.url, e.id);
    expect(events.map((x) => x.event)).toEqual(["execution", "progress", "progress", "progress", "result"]);
    expect(events.slice(1).map((x) => x.id)).toEqual(["1", "2", "3", "4"]);
    const resumed = await readEvents(a.url, e.id, { "last-event-id": "3" });
    expect(resumed.events.map((x) => `${x.event}:${x.id ?? ""}`)).toEqual(["execution:", "result:4"]);
  });

  it("cancel on either replica aborts the tool where it runs", async () => {
    const e = await acceptedExecution(await submit(a.url, "slow", { arguments: { ms: 20_000 } }));
    await pollUntil(b.url, e.id, ["running"]);
    const res = await fetch(`${b.url}/executions/${e.id}/cancel`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "cancelled", error: { code: "CANCELLED" } });
    const reason = (logA.reason ?? logB.reason) as { code?: string };
    expect(reason.code).toBe("CANCELLED");
  });

  it("timeout → failed/TOOL_TIMEOUT, isError → succeeded", async () => {
    const t = await acceptedExecution(await submit(a.url, "slow", { arguments: { ms: 5000 }, timeoutMs: 100 }));
    expect((await pollUntil(b.url, t.id, ["failed"])).error).toMatchObject({ code: "TOOL_TIMEOUT" });
    const d = await acceptedExecution(await submit(b.url, "divide", { arguments: { a: 1, b: 0 } }));
    expect((await pollUntil(a.url, d.id, ["succeeded"])).result).toEqual({ output: "Cannot divide by zero", isError: true });
  });

  it("Idempotency-Key replays across replicas and conflicts on another body", async () => {
    const h = { "idempotency-key": "redis-k1" };
    const first = await acceptedExecution(await submit(a.url, "echo", { arguments: { text: "once" } }, h));
    const again = await acceptedExecution(await submit(b.url, "echo", { arguments: { text: "once" } }, h));
    expect(again.id).toBe(first.id);
    const conflict = await submit(b.url, "echo", { arguments: { text: "other" } }, h);
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
  });

  it("the active limit is shared, and the list is newest first", async () => {
    const ids = [];
    for (let i = 0; i < 5; i++)
      ids.push((await acceptedExecution(await submit(i % 2 ? a.url : b.url, "slow", { arguments: { ms: 20_000 } }))).id);
    const over = await submit(a.url, "slow", { arguments: { ms: 1 } });
    expect(over.status).toBe(429);
    expect(await over.json()).toMatchObject({ code: "OVERLOADED" });
    const page = (await (await fetch(`${b.url}/executions?limit=3`)).json()) as { executions: ExecutionBody[]; next?: string };
    expect(page.executions.map((x) => x.id)).toEqual(ids.slice(-3).reverse());
    const next = (await (await fetch(`${b.url}/executions?limit=2&cursor=${page.next}`)).json()) as { executions: ExecutionBody[] };
    expect(next.executions.map((x) => x.id)).toEqual([ids[1], ids[0]]);
    await Promise.all(ids.map((id) => fetch(`${a.url}/executions/${id}/cancel`, { method: "POST" })));
    const running = (await (await fetch(`${b.url}/executions?status=running`)).json()) as { executions: unknown[] };
    expect(running.executions).toEqual([]);
  });

  it("ids whose record expired unfinished do not count against the active limit", async () => {
    const admin = new Redis(url);
    try {
      const gone = Array.from({ length: 5 }, (_, i) => `${"f".repeat(31)}${i}`);
      await admin.sadd("{toolnexus}:active:anonymous", ...gone);
      const e = await acceptedExecution(await submit(a.url, "echo", { arguments: { text: "room" } }));
      await pollUntil(b.url, e.id, ["succeeded"]);
      expect(await admin.smembers("{toolnexus}:active:anonymous")).toEqual([]);
    } finally {
      admin.disconnect();
    }
  });
});

describe("executions on Redis, retention per caller", () => {
  // Each on its own database: the count of finished executions must start at zero.
  const withCap = (db: number) =>
    startServer({ config: { redis: { url: `${inject("redisUrl")}/${db}` }, executions: { maxRetainedPerCaller: 2 } }, tools: testTools() });

  it("past executions.maxRetainedPerCaller the executions that finished first are deleted from Redis", async () => {
    const r = await withCap(2);
    try {
      await retentionChecks.firstFinishedGoFirst(r.url);
    } finally {
      await r.close();
    }
  });

  it("an execution submitted long before the ones that pushed it past maxRetainedPerCaller is kept when it finishes", async () => {
    const r = await withCap(3);
    try {
      await retentionChecks.longRunKeptWhenItFinishes(r.url);
    } finally {
      await r.close();
    }
  });
});

describe("executions on Redis, live events across a subscriber reconnect", () => {
  it("events published while the subscriber was cut off reach the reader from the stored list", async () => {
    // Its own redis-server: cutting its subscribers must not touch other files' replicas.
    const redis = await startRedis();
    let open: () => void = () => undefined;
    const opened = new Promise<void>((r) => (open = r));
    const gate = defineTool({
      name: "gate",
      description: "progress 1, waits for the test, progress 2, answers",
      run: async (_args, ctx) => {
        ctx.onProgress?.({ progress: 1, total: 2 });
        await opened;
        ctx.onProgress?.({ progress: 2, total: 2 });
        return "opened";
      },
    });
    const r = await startServer({ config: { redis: { url: redis.url } }, tools: [gate] });
    const admin = new Redis(redis.url);
    try {
      const e = await acceptedExecution(await submit(r.url, "gate"));
      const { events } = await readEvents(r.url, e.id, {}, (ev) => {
        if (ev.event !== "progress" || JSON.parse(ev.data).progress !== 1) return;
        // The replica's subscriber is cut; progress 2 and the result are published at once, long
        // before ioredis reconnects (its first retry waits 100 ms): pub/sub loses them, and only
        // the catch-up read on reconnect can deliver them.
        void admin.call("CLIENT", "KILL", "TYPE", "pubsub").then(() => open());
      });
      expect(events.map((x) => x.event)).toEqual(["execution", "progress", "progress", "result"]);
      expect(JSON.parse(events.at(-1)?.data ?? "{}")).toEqual({ output: "opened", isError: false });
    } finally {
      open();
      admin.disconnect();
      await r.close();
      await redis.stop();
    }
  });
});
