import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submit, type ExecutionBody } from "../../helpers/executions.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { eventually } from "../../helpers/wait.js";

const PLUGIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/plugins/conformance-tasks.mjs");
const CALLERS = 100;
const PER_CALLER = 100; // executions.maxActivePerCaller: 10,000 waits in all
const keyOf = (i: number) => `scale-key-${String(i).padStart(4, "0")}-0123456789`;
const as = (i: number) => ({ authorization: `Bearer ${keyOf(i)}` });

/** Runs `fn` over `items`, `width` at a time. */
async function pooled<T, R>(items: T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i] as T);
      }
    }),
  );
  return out;
}

async function listed(url: string, caller: number, status: string): Promise<ExecutionBody[]> {
  const res = await fetch(`${url}/executions?status=${status}&limit=${PER_CALLER}`, { headers: as(caller) });
  return ((await res.json()) as { executions: ExecutionBody[] }).executions;
}

const callers = Array.from({ length: CALLERS }, (_, i) => i);

describe("10,000 executions waiting for their callers' input at once (in-process store)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({
      config: {
        auth: { apiKeys: callers.map((i) => ({ id: `c${i}`, key: keyOf(i) })) },
        plugins: [PLUGIN],
        executions: { maxActivePerCaller: PER_CALLER },
        // Waiting executions count as calls in flight: server.maxConcurrent bounds them all (default 256).
        server: { maxConcurrent: 16_384 },
      },
    });
  });
  afterAll(() => s?.close());

  it("each caller's limit refuses the rest with 429; no caller sees or answers another's; answered, every wait is released", async () => {
    const slots = callers.flatMap((c) => Array.from({ length: PER_CALLER }, () => c));
    const accepted = await pooled(slots, 64, async (c) => {
      const res = await submit(s.url, "confirm_delete", { arguments: { filename: `f${c}` } }, as(c));
      expect(res.status, await res.clone().text()).toBe(202);
      return { caller: c, id: ((await res.json()) as ExecutionBody).id };
    });
    // Past the limit: refused, nothing queued for later.
    for (const c of [0, CALLERS - 1]) {
      const over = await submit(s.url, "confirm_delete", { arguments: { filename: "x" } }, as(c));
      expect(over.status).toBe(429);
      expect(await over.json()).toMatchObject({ code: "OVERLOADED" });
    }
    // Every one waits, and each caller lists exactly its own.
    await eventually(
      async () => (await pooled(callers, 16, (c) => listed(s.url, c, "input_required"))).every((l) => l.length === PER_CALLER),
      {
        timeoutMs: 60_000,
        everyMs: 200,
      },
    );
    const mine = new Set(accepted.filter((a) => a.caller === 7).map((a) => a.id));
    expect((await listed(s.url, 7, "input_required")).every((e) => mine.has(e.id))).toBe(true);
    // Another caller's answer or look: as absent as an unknown id, and the execution keeps waiting.
    const foreign = accepted.find((a) => a.caller === 8)!;
    const stolen = await fetch(`${s.url}/executions/${foreign.id}/input`, {
      method: "POST",
      headers: { "content-type": "application/json", ...as(7) },
      body: JSON.stringify({ inputResponses: { input: { action: "accept", content: {} } } }),
    });
    expect(stolen.status).toBe(404);
    expect((await fetch(`${s.url}/executions/${foreign.id}`, { headers: as(7) })).status).toBe(404);

    const answered = await pooled(accepted, 64, async ({ caller, id }) => {
      const res = await fetch(`${s.url}/executions/${id}/input`, {
        method: "POST",
        headers: { "content-type": "application/json", ...as(caller) },
        body: JSON.stringify({ inputResponses: { input: { action: "accept", content: { confirm: true } } } }),
      });
      return res.status;
    });
    expect(answered.filter((st) => st !== 200)).toEqual([]);
    await eventually(async () => (await pooled(callers, 16, (c) => listed(s.url, c, "succeeded"))).every((l) => l.length === PER_CALLER), {
      timeoutMs: 60_000,
      everyMs: 200,
    });
    // The waits are over: each caller may start as many again. That one is left waiting: closing
    // the server ends its wait (NOT_READY) rather than waiting out inputTimeoutMs.
    expect((await submit(s.url, "confirm_delete", { arguments: { filename: "again" } }, as(0))).status).toBe(202);
  }, 180_000);
});
