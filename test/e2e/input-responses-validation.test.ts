import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool } from "../../src/core/define-tool.js";
import { pending } from "../../src/core/input/pending.js";
import { executeTool } from "../helpers/execute.js";
import { acceptedExecution, pollUntil, submit } from "../helpers/executions.js";
import { startReferenceServer, type ReferenceServer } from "../helpers/reference-server.js";
import { startServer, type TestServer } from "../helpers/server.js";

type Json = Record<string, unknown>;

const ELICIT = "test_input_required_result_elicitation";
const SAMPLE = "test_input_required_result_sampling";
const ROOTS = "test_input_required_result_list_roots";

/** A toolnexus tool that asks one question with two options. */
const colour = defineTool({
  name: "colour",
  description: "Asks for a colour",
  run: (_args, ctx) =>
    ctx?.answer
      ? `chose ${JSON.stringify(ctx.answer.data)}`
      : pending({ kind: "question", prompt: "Colour?", data: { questions: [{ question: "Colour?", options: ["red", "blue"] }] } }),
});

/** The REST pending id of a first call of `tool`. */
async function pendingId(url: string, tool: string): Promise<string> {
  const res = await executeTool(url, tool, { arguments: {} });
  return ((await res.json()) as { metadata: { pending: { id: string } } }).metadata.pending.id;
}

const answered = (url: string, tool: string, id: string, inputResponses: Json) =>
  executeTool(url, tool, { arguments: {}, answer: { id, ok: true, data: { inputResponses } } });

/** One 2026-07-28 `tools/call` on `/mcp` from a client that can answer elicitation, sampling and roots. */
async function mcpCall(url: string, tool: string, params: Json = {}): Promise<Json> {
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "responses-test", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} }, sampling: {}, roots: {} },
  };
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": tool,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: {}, ...params, _meta } }),
  });
  return (await res.json()) as Json;
}

/**
 * inputResponses are held to the requests they answer before anything reaches the tool or the
 * upstream: an accepted form to its requestedSchema, a sampling answer to a CreateMessageResult's
 * shape, a roots answer to a ListRootsResult's; and no answer to a request never made.
 */
describe("inputResponses are checked against what was asked, on every transport", () => {
  let ref: ReferenceServer;
  let srv: TestServer;
  const calls = () => ref.received.filter((m) => m.method === "tools/call").length;

  beforeAll(async () => {
    ref = await startReferenceServer();
    srv = await startServer({
      config: { mcpServers: { everything: { url: ref.url, prefix: false as const, protocolVersion: "2026-07-28" } } },
      tools: [colour],
    });
  }, 120_000);
  afterAll(async () => {
    await srv?.close();
    await ref?.close();
  });

  it("REST: 422 INVALID_INPUT_RESPONSES for an answer that does not fit, and nothing reaches the upstream", async () => {
    const id = await pendingId(srv.url, ELICIT);
    const before = calls();
    const cases: [Json, string][] = [
      [{ user_name: { action: "accept", content: { name: 42 } } }, "/inputResponses/user_name/content/name"],
      [{ user_name: { action: "accept", content: {} } }, "/inputResponses/user_name/content/name"],
      [{ user_name: { action: "accept" } }, "/inputResponses/user_name/content"],
      [{ user_name: { action: "maybe" } }, "/inputResponses/user_name/action"],
      [{ user_name: { action: "decline" }, never_asked: { action: "accept", content: {} } }, "/inputResponses/never_asked"],
      [{}, "/inputResponses/user_name"],
    ];
    for (const [inputResponses, pointer] of cases) {
      const res = await answered(srv.url, ELICIT, id, inputResponses);
      expect(res.status).toBe(422);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      const body = (await res.json()) as { code: string; errors: { pointer: string }[] };
      expect(body.code).toBe("INVALID_INPUT_RESPONSES");
      expect(body.errors.map((e) => e.pointer)).toContain(pointer);
    }
    const sampleId = await pendingId(srv.url, SAMPLE);
    const rootsId = await pendingId(srv.url, ROOTS);
    const sampled = { sample_request: { role: "robot", content: { text: "Paris" }, model: "m" } };
    const badSample = await answered(srv.url, SAMPLE, sampleId, sampled);
    expect(badSample.status).toBe(422);
    expect(((await badSample.json()) as { errors: { pointer: string }[] }).errors.map((e) => e.pointer)).toEqual(
      expect.arrayContaining(["/inputResponses/sample_request/role", "/inputResponses/sample_request/content"]),
    );
    const badRoots = await answered(srv.url, ROOTS, rootsId, { roots_request: { roots: [{ name: "no uri" }] } });
    expect(badRoots.status).toBe(422);
    expect(await badRoots.json()).toMatchObject({ errors: [{ pointer: "/inputResponses/roots_request/roots/0/uri" }] });
    expect(calls()).toBe(before + 2);

    // A declined (or cancelled) form needs no content; a fitting answer completes the call.
    const declined = await answered(srv.url, ELICIT, id, { user_name: { action: "cancel" } });
    expect(declined.status).toBe(200);
    const ok = await answered(srv.url, ELICIT, id, { user_name: { action: "accept", content: { name: "Ada" } } });
    expect(await ok.json()).toMatchObject({ output: "Hello, Ada!", isError: false });
  });

  it("/mcp: -32602 with data.code INVALID_INPUT_RESPONSES on the retry, for an upstream's request and a tool's own question", async () => {
    const first = await mcpCall(srv.url, ELICIT);
    const { requestState } = first.result as { requestState: string };
    const before = calls();
    const bad = await mcpCall(srv.url, ELICIT, { requestState, inputResponses: { user_name: { action: "accept", content: { name: 1 } } } });
    expect(bad.error).toMatchObject({ code: -32602, data: { code: "INVALID_INPUT_RESPONSES" } });
    const stray = await mcpCall(srv.url, ELICIT, {
      requestState,
      inputResponses: { user_name: { action: "decline" }, other: { action: "decline" } },
    });
    expect(stray.error).toMatchObject({ code: -32602, data: { code: "INVALID_INPUT_RESPONSES" } });
    expect(calls()).toBe(before);

    const sample = (await mcpCall(srv.url, SAMPLE)).result as { requestState: string };
    const badSample = await mcpCall(srv.url, SAMPLE, {
      requestState: sample.requestState,
      inputResponses: { sample_request: { role: "assistant", content: { type: "text", text: "x" } } },
    });
    expect(badSample.error).toMatchObject({ code: -32602, data: { code: "INVALID_INPUT_RESPONSES" } });

    // The tool's question became a form with an enum: an answer outside it never reaches the tool.
    const asked = (await mcpCall(srv.url, "colour")).result as { resultType: string; requestState: string };
    expect(asked.resultType).toBe("input_required");
    const outside = await mcpCall(srv.url, "colour", {
      requestState: asked.requestState,
      inputResponses: { input: { action: "accept", content: { q1: "green" } } },
    });
    expect(outside.error).toMatchObject({ code: -32602, data: { code: "INVALID_INPUT_RESPONSES" } });
    const chosen = await mcpCall(srv.url, "colour", {
      requestState: asked.requestState,
      inputResponses: { input: { action: "accept", content: { q1: "blue" } } },
    });
    expect(chosen.result).toMatchObject({ content: [{ type: "text", text: 'chose {"q1":"blue"}' }] });
  });

  it("POST /executions/{id}/input: 422 for a bad answer or one to a request never made; a cancelled execution takes none", async () => {
    const e = await acceptedExecution(await submit(srv.url, SAMPLE, { arguments: {} }));
    await pollUntil(srv.url, e.id, ["input_required"]);
    const input = (inputResponses: Json) =>
      fetch(`${srv.url}/executions/${e.id}/input`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ inputResponses }),
      });
    const before = calls();
    const bad = await input({ sample_request: { role: "assistant", content: "Paris", model: "m" } });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({
      code: "INVALID_INPUT_RESPONSES",
      errors: [{ pointer: "/inputResponses/sample_request/content" }],
    });
    const stray = await input({ never_asked: { roots: [] } });
    expect(stray.status).toBe(422);
    expect(calls()).toBe(before);

    const cancel = await fetch(`${srv.url}/executions/${e.id}/cancel`, { method: "POST" });
    expect(cancel.status).toBe(200);
    // Ended (no longer input_required): an answer now is refused, and nothing is held for it.
    expect(((await cancel.json()) as { status: string }).status).not.toBe("input_required");
    const late = await input({ sample_request: { role: "assistant", content: { type: "text", text: "Paris" }, model: "m" } });
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ code: "EXECUTION_NOT_WAITING" });
    expect(calls()).toBe(before);
  });
});
