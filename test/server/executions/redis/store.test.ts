import { Redis } from "ioredis";
import { describe, expect, inject, it } from "vitest";
import { defineTool } from "../../../../src/core/define-tool.js";
import { acceptedExecution, readEvents, retentionChecks, submit } from "../../../helpers/executions.js";
import { executionsOnRedis } from "../../../helpers/executions-on-redis.js";
import { startRedis } from "../../../helpers/redis.js";
import { startServer } from "../../../helpers/server.js";
import { testTools } from "../../../helpers/tools.js";

// Database 1 of the run's redis-server: other files use other databases, so queues never mix.
executionsOnRedis("executions on Redis, two servers", () => ({ url: `${inject("redisUrl")}/1`, namespace: "toolnexus" }));

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
