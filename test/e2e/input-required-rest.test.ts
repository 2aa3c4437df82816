import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeTool } from "../helpers/execute.js";
import { acceptedExecution, pollUntil, submit, type ExecutionBody } from "../helpers/executions.js";
import { startReferenceServer, type ReferenceServer } from "../helpers/reference-server.js";
import { startServer, type TestServer } from "../helpers/server.js";

const SECRET = "an-input-request-test-secret-0123456789";

interface Pending {
  id: string;
  kind: string;
  prompt: string;
  data: { inputRequests: Record<string, { method: string; params?: Record<string, unknown> }> };
  expiresAt: string;
}
interface Body {
  output?: string;
  isError?: boolean;
  code?: string;
  metadata?: { pending?: Pending };
}

async function call(url: string, tool: string, answer?: unknown): Promise<{ status: number; body: Body }> {
  const res = await executeTool(url, tool, { arguments: {}, ...(answer ? { answer } : {}) });
  return { status: res.status, body: (await res.json()) as Body };
}

/** The pending of a first call, asserted to be one. */
async function pendingOf(url: string, tool: string): Promise<Pending> {
  const { status, body } = await call(url, tool);
  expect(status).toBe(200);
  expect(body.isError).toBe(true);
  const p = body.metadata?.pending;
  if (!p) throw new Error(`no pending: ${JSON.stringify(body)}`);
  return p;
}

const accept = (content: Record<string, unknown>) => ({ action: "accept", content });
const sampled = (text: string) => ({ role: "assistant", content: { type: "text", text }, model: "test-model" });
const roots = { roots: [{ uri: "file:///work", name: "work" }] };

/**
 * The conformance reference server's input_required tools through plain REST execute: the
 * first call is a pending, the repeated call with `answer` reaches the upstream as its MRTR
 * retry (inputResponses and the requestState it issued) and completes.
 */
describe("a 2026 upstream's input requests over REST", () => {
  let ref: ReferenceServer;
  let srv: TestServer;
  let other: TestServer;

  beforeAll(async () => {
    ref = await startReferenceServer();
    const config = {
      server: { stateSecret: SECRET },
      mcpServers: { everything: { url: ref.url, prefix: false as const, protocolVersion: "2026-07-28" } },
    };
    srv = await startServer({ config });
    other = await startServer({ config: { ...config, server: { stateSecret: `${SECRET}-other` } } });
  }, 120_000);
  afterAll(async () => {
    await srv?.close();
    await other?.close();
    await ref?.close();
  });

  it("elicitation: pending of kind elicitation, then the answer completes the call", async () => {
    const p = await pendingOf(srv.url, "test_input_required_result_elicitation");
    expect(p).toMatchObject({ kind: "elicitation", prompt: "What is your name?" });
    expect(p.data.inputRequests.user_name?.method).toBe("elicitation/create");
    expect(Date.parse(p.expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(p.id).not.toContain("requestState");
    const done = await call(srv.url, "test_input_required_result_elicitation", {
      id: p.id,
      ok: true,
      data: { inputResponses: { user_name: accept({ name: "Ada" }) } },
    });
    expect(done).toMatchObject({ status: 200, body: { output: "Hello, Ada!", isError: false } });
  });

  it("sampling and roots", async () => {
    const s = await pendingOf(srv.url, "test_input_required_result_sampling");
    expect(s.kind).toBe("sampling");
    const sDone = await call(srv.url, "test_input_required_result_sampling", {
      id: s.id,
      ok: true,
      data: { inputResponses: { sample_request: sampled("Paris") } },
    });
    expect(sDone.body).toMatchObject({ output: "Sampling result: Paris", isError: false });

    const r = await pendingOf(srv.url, "test_input_required_result_list_roots");
    expect(r.kind).toBe("roots");
    const rDone = await call(srv.url, "test_input_required_result_list_roots", {
      id: r.id,
      ok: true,
      data: { inputResponses: { roots_request: roots } },
    });
    expect(rDone.body).toMatchObject({ output: "Found 1 root(s)", isError: false });
  });

  it("several inputs in one round, with the upstream's requestState echoed", async () => {
    const p = await pendingOf(srv.url, "test_input_required_result_multiple_inputs");
    expect(Object.keys(p.data.inputRequests).sort()).toEqual(["client_roots", "greeting", "user_name"]);
    const done = await call(srv.url, "test_input_required_result_multiple_inputs", {
      id: p.id,
      ok: true,
      data: { inputResponses: { user_name: accept({ name: "Ada" }), greeting: sampled("Hi!"), client_roots: roots } },
    });
    expect(done.body).toMatchObject({ output: "Name: Ada; Greeting: Hi!; Roots: 1", isError: false });
    const last = ref.received.filter((m) => m.method === "tools/call").at(-1);
    expect(JSON.parse(last?.params?.requestState as string)).toMatchObject({ kind: "multiple-inputs" });
  });

  it("inside an execution: input_required through each round, answered with POST /executions/{id}/input, the requestState echoed", async () => {
    const tool = "test_input_required_result_multi_round";
    const e = await acceptedExecution(await submit(srv.url, tool, { arguments: {} }));
    type Waiting = ExecutionBody & { inputRequests?: Record<string, { method: string; params: { message?: string } }> };
    const input = (inputResponses: unknown) =>
      fetch(`${srv.url}/executions/${e.id}/input`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ inputResponses }),
      });
    const first = (await pollUntil(srv.url, e.id, ["input_required"])) as Waiting;
    expect(first.inputRequests?.step1?.params.message).toBe("Step 1: What is your name?");
    expect((await input({ step1: accept({ name: "Ada" }) })).status).toBe(200);
    const second = (await pollUntil(srv.url, e.id, ["input_required"])) as Waiting;
    expect(second.inputRequests?.step2?.params.message).toBe("Step 2: What is your favorite color?");
    expect((await input({ step2: accept({ color: "green" }) })).status).toBe(200);
    const done = await pollUntil(srv.url, e.id, ["succeeded", "failed"]);
    expect(done.result).toMatchObject({ output: "Multi-round complete for Ada who likes green", isError: false });
  });

  it("several rounds: each answer gets the next pending, the last one the result", async () => {
    const tool = "test_input_required_result_multi_round";
    const p1 = await pendingOf(srv.url, tool);
    expect(p1.prompt).toBe("Step 1: What is your name?");
    const r2 = await call(srv.url, tool, { id: p1.id, ok: true, data: { inputResponses: { step1: accept({ name: "Ada" }) } } });
    const p2 = r2.body.metadata?.pending;
    expect(p2?.prompt).toBe("Step 2: What is your favorite color?");
    const done = await call(srv.url, tool, { id: p2?.id, ok: true, data: { inputResponses: { step2: accept({ color: "green" }) } } });
    expect(done.body).toMatchObject({ output: "Multi-round complete for Ada who likes green", isError: false });
  });

  it("refuses a tampered, foreign or misapplied state with 400 INVALID_STATE, and nothing reaches the upstream", async () => {
    const tool = "test_input_required_result_request_state";
    const p = await pendingOf(srv.url, tool);
    const foreign = await pendingOf(other.url, tool);
    const before = ref.received.length;
    const inputResponses = { confirm: accept({ ok: true }) };
    const tampered = `${p.id.slice(0, -4)}${p.id.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`;
    for (const id of [tampered, foreign.id, "not-a-state"]) {
      const r = await call(srv.url, tool, { id, ok: true, data: { inputResponses } });
      expect(r).toMatchObject({ status: 400, body: { code: "INVALID_STATE" } });
    }
    // A state issued for one tool is refused for another.
    const misapplied = await call(srv.url, "test_input_required_result_elicitation", { id: p.id, ok: true, data: { inputResponses } });
    expect(misapplied).toMatchObject({ status: 400, body: { code: "INVALID_STATE" } });
    expect(ref.received.length).toBe(before);
    // The genuine one still works.
    const done = await call(srv.url, tool, { id: p.id, ok: true, data: { inputResponses } });
    expect(done.body).toMatchObject({ output: "state-ok: requestState validated", isError: false });
  });

  it("a declined elicitation is declined upstream; an accepted answer without inputResponses is 400", async () => {
    const tool = "test_input_required_result_elicitation";
    const p = await pendingOf(srv.url, tool);
    const bad = await call(srv.url, tool, { id: p.id, ok: true });
    expect(bad).toMatchObject({ status: 400, body: { code: "INVALID_REQUEST" } });
    await call(srv.url, tool, { id: p.id, ok: false, reason: "no" });
    const last = ref.received.filter((m) => m.method === "tools/call").at(-1);
    expect(last?.params?.inputResponses).toEqual({ user_name: { action: "decline" } });
  });

  it("tells a 2026 upstream the client can answer elicitation, sampling and roots", async () => {
    await pendingOf(srv.url, "test_input_required_result_elicitation");
    const last = ref.received.filter((m) => m.method === "tools/call").at(-1);
    const meta = last?.params?._meta as Record<string, unknown>;
    expect(meta["io.modelcontextprotocol/clientCapabilities"]).toMatchObject({ elicitation: {}, sampling: {}, roots: {} });
  });
});
