import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callSignal } from "../../../src/server/calls/call-signal.js";
import { acceptedExecution, pollUntil, type ExecutionBody } from "../../helpers/executions.js";
import { startServer, type TestServer } from "../../helpers/server.js";

// A real 2025-era upstream (SDK 1.x, stdio) that asks the gateway mid-call.
const ASKING = path.resolve(import.meta.dirname, "../../fixtures/mcp/asking-server.mjs");
const ACCEPT = { action: "accept", content: { response: "late" } };
// Longer than the calls' own timeoutMs below: the answer comes after the deadline would have passed.
const ANSWER_DELAY_MS = 800;

type Waiting = ExecutionBody & { inputRequests?: Record<string, unknown> };
let s: TestServer;
let short: TestServer;

const config = (server: Record<string, unknown> = {}) => ({ server, mcpServers: { asker: { command: [process.execPath, ASKING] } } });
beforeAll(async () => {
  [s, short] = await Promise.all([startServer({ config: config() }), startServer({ config: config({ inputTimeoutMs: 300 }) })]);
});
afterAll(() => Promise.all([s.close(), short.close()]));

function post(url: string, route: string, body: unknown): Promise<Response> {
  return fetch(`${url}${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

/** Waits until execution `id` asks, then answers its one request after ANSWER_DELAY_MS. */
async function answerLate(url: string, id: string): Promise<void> {
  const asked = (await pollUntil(url, id, ["input_required"])) as Waiting;
  await new Promise((r) => setTimeout(r, ANSWER_DELAY_MS));
  const key = Object.keys(asked.inputRequests ?? {})[0] ?? "";
  const res = await post(url, `/executions/${id}/input`, { inputResponses: { [key]: ACCEPT } });
  expect(res.status).toBe(200);
}

describe("the call's deadline pauses while it waits for its caller", () => {
  it("a promoted call whose timeoutMs is shorter than the answer's delay still completes with the answer", async () => {
    const res = await post(s.url, "/tools/asker_ask/execute", { arguments: { message: "Take your time" }, timeoutMs: 300 });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    await answerLate(s.url, id);
    const done = await pollUntil(s.url, id, ["succeeded", "failed"]);
    expect(done.error).toBeUndefined();
    expect(JSON.parse(done.result?.output ?? "{}")).toEqual(ACCEPT);
  });

  it("a submitted execution held twice, each wait longer than its timeoutMs, completes", async () => {
    const e = await acceptedExecution(
      await post(s.url, "/tools/asker_ask_twice/executions", { arguments: { message: "Twice" }, timeoutMs: 300 }),
    );
    await answerLate(s.url, e.id);
    await answerLate(s.url, e.id);
    const done = await pollUntil(s.url, e.id, ["succeeded", "failed"]);
    expect(done.error).toBeUndefined();
    expect(JSON.parse(done.result?.output ?? "[]")).toEqual([ACCEPT, ACCEPT]);
  });

  it("inputTimeoutMs, not the call's shorter timeoutMs, ends an unanswered wait: INPUT_TIMEOUT", async () => {
    const res = await post(short.url, "/tools/asker_ask/execute", { arguments: {}, timeoutMs: 100 });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const failed = await pollUntil(short.url, id, ["failed", "succeeded"]);
    expect(failed.error?.code).toBe("INPUT_TIMEOUT");
  });
});

describe("callSignal.pausedWhile", () => {
  it("does not fire the timeout while paused, and fires it once resumed with what was left", async () => {
    const call = callSignal(50);
    await call.pausedWhile(new Promise((r) => setTimeout(r, 150)));
    expect(call.signal.aborted).toBe(false);
    const reason = await new Promise((r) => call.signal.addEventListener("abort", () => r(call.signal.reason), { once: true }));
    expect(reason).toMatchObject({ code: "TOOL_TIMEOUT" });
    call.dispose();
  });

  it("does not re-arm a disposed call's timeout", async () => {
    const call = callSignal(10);
    const wait = call.pausedWhile(new Promise((r) => setTimeout(r, 20)));
    call.dispose();
    await wait;
    await new Promise((r) => setTimeout(r, 30));
    expect(call.signal.aborted).toBe(false);
  });
});
