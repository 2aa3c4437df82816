import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptedExecution, pollUntil, readEvents, submit, type ExecutionBody } from "../../helpers/executions.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { streamExecute } from "../../helpers/sse.js";

// A real 2025-era upstream (SDK 1.x, stdio) that asks the gateway mid-call.
const ASKING = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/mcp/asking-server.mjs");
const KEY_A = "key-a-0123456789abcdef";
const KEY_B = "key-b-0123456789abcdef";
const A = { authorization: `Bearer ${KEY_A}` };
const B = { authorization: `Bearer ${KEY_B}` };
const ACCEPT = { action: "accept", content: { response: "blue" } };

type Waiting = ExecutionBody & { inputRequests?: Record<string, { method: string; params?: Record<string, unknown> }> };

let s: TestServer;
let short: TestServer;
const config = (extra: Record<string, unknown> = {}) => ({
  auth: {
    apiKeys: [
      { id: "a", key: KEY_A },
      { id: "b", key: KEY_B },
    ],
  },
  mcpServers: { asker: { command: [process.execPath, ASKING] } },
  ...extra,
});

beforeAll(async () => {
  [s, short] = await Promise.all([startServer({ config: config() }), startServer({ config: config({ server: { inputTimeoutMs: 300 } }) })]);
});
afterAll(() => Promise.all([s.close(), short.close()]));

function execute(url: string, tool: string, args: Record<string, unknown>, headers = A): Promise<Response> {
  return fetch(`${url}/tools/${tool}/execute`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ arguments: args }),
  });
}

function answer(url: string, id: string, inputResponses: unknown, headers = A): Promise<Response> {
  return fetch(`${url}/executions/${id}/input`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ inputResponses }),
  });
}

/** The one key the execution waits on, after checking its request's method. */
function onlyKey(e: Waiting, method: string): string {
  const entries = Object.entries(e.inputRequests ?? {});
  expect(entries).toHaveLength(1);
  expect(entries[0]?.[1].method).toBe(method);
  return entries[0]?.[0] ?? "";
}

describe("an upstream that asks mid-call (2025 era, the call is held)", () => {
  it("promotes a synchronous execute to an execution: 202, input_required, answered by its owner only, then completed with the answer upstream", async () => {
    const res = await execute(s.url, "asker_ask", { message: "Favourite colour?" });
    expect(res.status).toBe(202);
    const promoted = (await res.json()) as Waiting;
    expect(res.headers.get("location")).toBe(`/executions/${promoted.id}`);
    expect(promoted.status).toBe("input_required");
    const key = onlyKey(promoted, "elicitation/create");
    expect(promoted.inputRequests?.[key]?.params?.message).toBe("Favourite colour?");

    const polled = (await pollUntil(s.url, promoted.id, ["input_required"], { headers: A })) as Waiting;
    expect(polled.inputRequests).toEqual(promoted.inputRequests);

    // Another caller sees nothing and cannot answer; a wrong key is refused and delivers nothing.
    expect((await answer(s.url, promoted.id, { [key]: ACCEPT }, B)).status).toBe(404);
    const wrong = await answer(s.url, promoted.id, { other: ACCEPT });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { code: string }).code).toBe("INVALID_REQUEST");

    const ok = await answer(s.url, promoted.id, { [key]: ACCEPT });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as ExecutionBody).status).not.toBe("input_required");
    const done = await pollUntil(s.url, promoted.id, ["succeeded", "failed"], { headers: A });
    expect(done.status).toBe("succeeded");
    expect(JSON.parse(done.result?.output ?? "{}")).toEqual(ACCEPT);
    // Answered once: a second answer finds nothing waiting.
    expect((await answer(s.url, promoted.id, { [key]: ACCEPT })).status).toBe(409);
  });

  it("holds a submitted execution through two rounds, each on its events stream", async () => {
    const execution = await acceptedExecution(await submit(s.url, "asker_ask_twice", { arguments: { message: "Name?" } }, A));
    const events: string[] = [];
    const streamed = readEvents(s.url, execution.id, A, (e) => events.push(e.event ?? ""));
    const first = (await pollUntil(s.url, execution.id, ["input_required"], { headers: A })) as Waiting;
    const k1 = onlyKey(first, "elicitation/create");
    expect((await answer(s.url, execution.id, { [k1]: { action: "accept", content: { response: "one" } } })).status).toBe(200);
    const second = (await pollUntil(s.url, execution.id, ["input_required"], { headers: A })) as Waiting;
    const k2 = onlyKey(second, "elicitation/create");
    expect(k2).not.toBe(k1);
    expect(second.inputRequests?.[k2]?.params?.message).toBe("Name? (again)");
    expect((await answer(s.url, execution.id, { [k2]: { action: "decline" } })).status).toBe(200);
    const done = await pollUntil(s.url, execution.id, ["succeeded", "failed"], { headers: A });
    expect(JSON.parse(done.result?.output ?? "[]")).toEqual([{ action: "accept", content: { response: "one" } }, { action: "decline" }]);
    await streamed;
    expect(events).toEqual(["execution", "input_required", "input_required", "result"]);
  });

  it("relays sampling requests as they are; roots/list is not relayed", async () => {
    const sampled = await acceptedExecution(await submit(s.url, "asker_sample", { arguments: { message: "Say hi" } }, A));
    const asked = (await pollUntil(s.url, sampled.id, ["input_required"], { headers: A })) as Waiting;
    const key = onlyKey(asked, "sampling/createMessage");
    expect(asked.inputRequests?.[key]?.params?.messages).toEqual([{ role: "user", content: { type: "text", text: "Say hi" } }]);
    const reply = { role: "assistant", content: { type: "text", text: "hi" }, model: "test-model" };
    expect((await answer(s.url, sampled.id, { [key]: reply })).status).toBe(200);
    const done = await pollUntil(s.url, sampled.id, ["succeeded", "failed"], { headers: A });
    expect(JSON.parse(done.result?.output ?? "{}")).toMatchObject(reply);

    // roots/list is not relayed from a 2025 server (held-input.ts says why): the server's request
    // is refused and the call ends on its own, never input_required.
    const rooted = await acceptedExecution(await submit(s.url, "asker_roots", {}, A));
    const rootsDone = await pollUntil(s.url, rooted.id, ["succeeded", "failed", "input_required"], { headers: A });
    expect(rootsDone.status).toBe("succeeded");
    expect(rootsDone.result?.isError).toBe(true);
  });

  it("promotes an SSE call: `execution`, then `input_required`, and the same stream ends with the result", async () => {
    const call = await streamExecute(s.url, "asker_ask", { arguments: { message: "Over SSE?" } }, A);
    const execution = (await call.waitFor((e) => e.event === "execution")).data as unknown as Waiting;
    const asked = await call.waitFor((e) => e.event === "input_required");
    expect(asked.data.inputRequests).toEqual(execution.inputRequests);
    const key = onlyKey(execution, "elicitation/create");
    expect((await answer(s.url, execution.id, { [key]: ACCEPT })).status).toBe(200);
    const result = await call.waitFor((e) => e.event === "result");
    expect(JSON.parse(String(result.data.output))).toEqual(ACCEPT);
    expect((await call.done).map((e) => e.event)).toEqual(["execution", "input_required", "result"]);
    const done = await pollUntil(s.url, execution.id, ["succeeded", "failed"], { headers: A });
    expect(done.result?.output).toBe(result.data.output);
  });

  it("fails a wait nobody answers within inputTimeoutMs with INPUT_TIMEOUT, and refuses a late answer with it", async () => {
    const execution = await acceptedExecution(await submit(short.url, "asker_ask", {}, A));
    const asked = (await pollUntil(short.url, execution.id, ["input_required", "failed"], { headers: A })) as Waiting;
    const key = Object.keys(asked.inputRequests ?? { none: 1 })[0] ?? "";
    const failed = await pollUntil(short.url, execution.id, ["failed", "succeeded"], { headers: A });
    expect(failed.status).toBe("failed");
    expect(failed.error?.code).toBe("INPUT_TIMEOUT");
    const late = await answer(short.url, execution.id, { [key]: ACCEPT });
    expect(late.status).toBe(410);
    expect(((await late.json()) as { code: string }).code).toBe("INPUT_TIMEOUT");
  });
});
