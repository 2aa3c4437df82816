import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool } from "../../src/core/define-tool.js";
import type { RedisConfig } from "../../src/config/schema/index.js";
import { acceptedExecution, longPollChecks, pollUntil, readEvents, submit, type ExecutionBody } from "./executions.js";
import { startServer, type TestServer } from "./server.js";
import { testTools, type SignalLog } from "./tools.js";

/**
 * The executions tests of two replicas sharing one Redis, for any `redis:` (one server, a
 * Sentinel-managed primary, a Cluster): submit, follow, events, cancel, timeouts,
 * Idempotency-Key, the shared active limit, input requests (long poll). `redis()` is read in
 * beforeAll; its namespace keeps runs apart.
 */
export function executionsOnRedis(title: string, redis: () => RedisConfig & { namespace: string }): void {
  describe(title, () => {
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
      const config = { redis: redis(), executions: { maxActivePerCaller: 5 } };
      a = await startServer({ config, tools: [...testTools(logA), steps] });
      b = await startServer({ config, tools: [...testTools(logB), steps] });
    });
    afterAll(async () => {
      await Promise.all([a?.close(), b?.close()]);
    });

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
      const r = redis();
      const admin = r.cluster
        ? new Cluster(r.cluster)
        : r.sentinels
          ? new Redis({ sentinels: r.sentinels, name: r.name ?? "" })
          : new Redis(r.url ?? "");
      try {
        const gone = Array.from({ length: 5 }, (_, i) => `${"f".repeat(31)}${i}`);
        await admin.sadd(`{${r.namespace}}:active:anonymous`, ...gone);
        const e = await acceptedExecution(await submit(a.url, "echo", { arguments: { text: "room" } }));
        await pollUntil(b.url, e.id, ["succeeded"]);
        expect(await admin.smembers(`{${r.namespace}}:active:anonymous`)).toEqual([]);
      } finally {
        admin.disconnect();
      }
    });
  });
}
