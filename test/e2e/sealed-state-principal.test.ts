import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeTool } from "../helpers/execute.js";
import { jwtConfig, startIdp, type TestIdp } from "../helpers/jwks.js";
import { startReferenceServer, type ReferenceServer } from "../helpers/reference-server.js";
import { startServer, type TestServer } from "../helpers/server.js";

const API_KEY = "tnx-sealed-state-principal-key-0123456789";
const TOOL = "test_input_required_result_elicitation";
const ANSWER = { user_name: { action: "accept", content: { name: "Ada" } } };

type Json = Record<string, unknown>;

/** One 2026-07-28 `tools/call` on `/mcp` from a client that can answer form elicitations. */
async function mcpCall(url: string, authorization: string, params: Json): Promise<Json> {
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "principal-test", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  };
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      authorization,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": TOOL,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: TOOL, arguments: {}, ...params, _meta } }),
  });
  return (await res.json()) as Json;
}

/**
 * Sealed input state names the caller by how it authenticated as well as by its id: a JWT
 * whose `sub` equals an API key's id is another caller, and never opens that key's state.
 */
describe("sealed input state is bound to the caller's kind and id", () => {
  let idp: TestIdp;
  let ref: ReferenceServer;
  let srv: TestServer;
  let key: string;
  let jwt: string;

  beforeAll(async () => {
    idp = await startIdp();
    const signing = await idp.key("k1");
    idp.publish([signing]);
    ref = await startReferenceServer();
    srv = await startServer({
      config: {
        server: { stateSecret: "a-sealed-state-principal-secret-0123456789" },
        auth: { apiKeys: [{ id: "alice", key: API_KEY }], jwt: jwtConfig(idp), policies: [{ id: "everyone", tools: ["*"] }] },
        mcpServers: { everything: { url: ref.url, prefix: false as const, protocolVersion: "2026-07-28" } },
      },
    });
    key = `Bearer ${API_KEY}`;
    // The same principal id as the API key, from another kind of credential.
    jwt = `Bearer ${await idp.sign({ sub: "alice" }, signing)}`;
  }, 120_000);
  afterAll(async () => {
    await srv?.close();
    await ref?.close();
    await idp?.close();
  });

  it("REST: the API key's pending id is 400 INVALID_STATE for a JWT with the same sub, and nothing reaches the upstream", async () => {
    const first = await executeTool(srv.url, TOOL, { arguments: {} }, { authorization: key });
    const id = ((await first.json()) as { metadata: { pending: { id: string } } }).metadata.pending.id;
    const answer = { id, ok: true, data: { inputResponses: ANSWER } };

    const before = ref.received.length;
    const stolen = await executeTool(srv.url, TOOL, { arguments: {}, answer }, { authorization: jwt });
    expect(stolen.status).toBe(400);
    expect(await stolen.json()).toMatchObject({
      code: "INVALID_STATE",
      detail: "This state was not issued by this gateway, or was altered",
    });
    expect(ref.received.length).toBe(before);

    // Its owner still answers it.
    const own = await executeTool(srv.url, TOOL, { arguments: {}, answer }, { authorization: key });
    expect(await own.json()).toMatchObject({ output: "Hello, Ada!", isError: false });
  });

  it("REST: a JWT's pending id is refused to the API key whose id is the JWT's sub", async () => {
    const first = await executeTool(srv.url, TOOL, { arguments: {} }, { authorization: jwt });
    const id = ((await first.json()) as { metadata: { pending: { id: string } } }).metadata.pending.id;
    const stolen = await executeTool(
      srv.url,
      TOOL,
      { arguments: {}, answer: { id, ok: true, data: { inputResponses: ANSWER } } },
      { authorization: key },
    );
    expect(stolen.status).toBe(400);
    expect(((await stolen.json()) as { code: string }).code).toBe("INVALID_STATE");
  });

  it("/mcp: the API key's requestState is -32602 INVALID_STATE for a JWT with the same sub, and nothing reaches the upstream", async () => {
    const first = await mcpCall(srv.url, key, {});
    const { requestState } = first.result as { resultType: string; requestState: string };
    expect(first.result).toMatchObject({ resultType: "input_required" });

    const before = ref.received.length;
    const stolen = await mcpCall(srv.url, jwt, { inputResponses: ANSWER, requestState });
    expect(stolen.error).toMatchObject({ code: -32602, data: { code: "INVALID_STATE" } });
    expect(ref.received.length).toBe(before);

    const own = await mcpCall(srv.url, key, { inputResponses: ANSWER, requestState });
    expect(own.result).toMatchObject({ content: [{ type: "text", text: "Hello, Ada!" }] });
  });
});
