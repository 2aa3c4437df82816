import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeTool } from "../../helpers/execute.js";
import { pollUntil, submit } from "../../helpers/executions.js";
import { jwtConfig, startIdp, type TestIdp } from "../../helpers/jwks.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { startHttpMcpServer, type HttpMcpServer, type SeenCall } from "../../fixtures/mcp/http-server.js";
import { startUpstream, type Upstream } from "../../sources/http/upstream.js";
import { startAgent, type AgentServer } from "../../fixtures/a2a/agent-server.js";
import path from "node:path";

const API_KEY = "gateway-key-0123456789abcdef";
const CONFIGURED = "Bearer configured-upstream-secret";
let idp: TestIdp;
let up: Upstream;
let mcp: HttpMcpServer;
let front: Server;
let agent: AgentServer;
let remote: AgentServer;
let cardFront: Server;
let s: TestServer;
let jwt: string;

beforeAll(async () => {
  idp = await startIdp();
  const key = await idp.key("k1");
  idp.publish([key]);
  jwt = await idp.sign({ sub: "alice", groups: ["eng"] }, key);
  up = await startUpstream();
  mcp = await startHttpMcpServer();
  agent = await startAgent({ name: "helper" });
  // An agent whose card is served from another origin than the one it names for its calls.
  remote = await startAgent({ name: "remote" });
  cardFront = createServer(
    (_req, res) =>
      void fetch(remote.cardUrl)
        .then((r) => r.text())
        .then((card) => res.writeHead(200, { "content-type": "application/json" }).end(card)),
  );
  await new Promise<void>((r) => cardFront.listen(0, "127.0.0.1", r));
  const cardFrontUrl = `http://127.0.0.1:${(cardFront.address() as AddressInfo).port}${new URL(remote.cardUrl).pathname}`;
  // Another origin (same host, other port) that redirects to the MCP server and the upstream.
  front = createServer((req, res) => res.writeHead(307, { location: req.url === "/mcp" ? mcp.url : `${up.url}/echo/redirected` }).end());
  await new Promise<void>((r) => front.listen(0, "127.0.0.1", r));
  const frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}/mcp`;
  const headers = { Authorization: CONFIGURED };
  s = await startServer({
    config: {
      auth: {
        apiKeys: [{ id: "ci", key: API_KEY, operator: true }],
        jwt: jwtConfig(idp),
        policies: [{ id: "eng", groups: ["eng"], tools: ["*"] }],
      },
      http: [
        { name: "fwd_echo", url: `${up.url}/echo/fwd`, headers, forwardAuth: true },
        { name: "plain_echo", url: `${up.url}/echo/plain`, headers },
        { name: "fwd_redirect", url: frontUrl.replace("/mcp", "/echo"), headers, forwardAuth: true, resultMode: "status+text" },
      ],
      openapi: [
        {
          spec: path.resolve(import.meta.dirname, "../../fixtures/openapi/petstore3.json"),
          baseUrl: `${up.url}/echo`,
          prefix: "pets",
          headers,
          forwardAuth: true,
        },
      ],
      agents: { helper: { card: agent.cardUrl, headers, forwardAuth: true }, remote: { card: cardFrontUrl, headers, forwardAuth: true } },
      mcpServers: {
        fwd: { url: mcp.url, headers, forwardAuth: true },
        plain: { url: mcp.url, headers },
        redirected: { url: frontUrl, headers, forwardAuth: true },
      },
    },
    // A native tool: no forwardAuth, so the caller's token is not even in its context.
    tools: [
      {
        name: "peek",
        description: "What ctx.auth holds",
        inputSchema: { type: "object" },
        source: "native",
        execute: async (_a, ctx) => ({ output: String(ctx?.auth?.bearer ?? "none"), isError: false }),
      },
    ],
  });
});
afterAll(async () => {
  await s.close();
  await mcp.close();
  front.closeAllConnections();
  await new Promise((r) => front.close(r));
  await up.close();
  await agent.close();
  await remote.close();
  cardFront.closeAllConnections();
  await new Promise((r) => cardFront.close(r));
  await idp.close();
});

// What the upstream received, read from its own record: the echo the caller gets back has the token redacted.
async function httpAuth(tool: string, authorization: string): Promise<string | undefined> {
  const before = up.seen.length;
  const res = await executeTool(s.url, tool, {}, { authorization });
  expect(res.status).toBe(200);
  expect(up.seen.length).toBe(before + 1);
  return up.seen.at(-1)?.headers.authorization;
}

async function mcpAuth(tool: string, authorization: string): Promise<string | undefined> {
  const before = mcp.calls.length;
  const res = await executeTool(s.url, tool, {}, { authorization });
  expect(res.status).toBe(200);
  expect(mcp.calls.length).toBe(before + 1);
  return (mcp.calls.at(-1) as SeenCall).authorization;
}

describe("forwardAuth", () => {
  it("an http source with the flag sends the JWT caller's own token; one without sends its configured header", async () => {
    expect(await httpAuth("fwd_echo", `Bearer ${jwt}`)).toBe(`Bearer ${jwt}`);
    expect(await httpAuth("plain_echo", `Bearer ${jwt}`)).toBe(CONFIGURED);
  });

  it("a streamable-HTTP MCP server with the flag sees the caller's token on tools/call; one without sees its configured header", async () => {
    expect(await mcpAuth("fwd_whoami", `Bearer ${jwt}`)).toBe(`Bearer ${jwt}`);
    expect(await mcpAuth("plain_whoami", `Bearer ${jwt}`)).toBe(CONFIGURED);
  });

  it("openapi and A2A sources with the flag send the JWT caller's token; for an API key caller, the configured header", async () => {
    const res = await executeTool(s.url, "pets_getPetById", { arguments: { petId: 7 } }, { authorization: `Bearer ${jwt}` });
    expect(res.status).toBe(200);
    expect(up.seen.find((r) => r.url === "/echo/pet/7")?.headers.authorization).toBe(`Bearer ${jwt}`);
    const before = agent.calls.length;
    expect((await executeTool(s.url, "helper_echo", { arguments: { task: "hi" } }, { authorization: `Bearer ${jwt}` })).status).toBe(200);
    const during = agent.calls.slice(before);
    expect(during.length).toBeGreaterThan(0);
    expect(during.every((c) => c.authorization === `Bearer ${jwt}`)).toBe(true);
    const keyCalls = agent.calls.length;
    expect((await executeTool(s.url, "helper_echo", { arguments: { task: "hi" } }, { authorization: `Bearer ${API_KEY}` })).status).toBe(
      200,
    );
    expect(agent.calls.length).toBeGreaterThan(keyCalls);
    expect(agent.calls.slice(keyCalls).every((c) => c.authorization === CONFIGURED)).toBe(true);
  });

  it("an API key is a gateway credential: never forwarded, the configured credentials apply", async () => {
    expect(await httpAuth("fwd_echo", `Bearer ${API_KEY}`)).toBe(CONFIGURED);
    expect(await mcpAuth("fwd_whoami", `Bearer ${API_KEY}`)).toBe(CONFIGURED);
    expect(up.seen.some((r) => JSON.stringify(r.headers).includes(API_KEY))).toBe(false);
    expect(mcp.calls.some((c) => c.authorization?.includes(API_KEY))).toBe(false);
  });

  it("a tool whose source does not forward never receives the token in its context", async () => {
    const res = await executeTool(s.url, "peek", {}, { authorization: `Bearer ${jwt}` });
    expect(((await res.json()) as { output: string }).output).toBe("none");
  });

  it("the token never follows a redirect to another origin", async () => {
    const mcpCalls = mcp.calls.length;
    // http/openapi sources do not follow redirects: the caller gets the 307, the target nothing.
    const res = await executeTool(s.url, "fwd_redirect", {}, { authorization: `Bearer ${jwt}` });
    expect(((await res.json()) as { output: string }).output).toMatch(/^HTTP 307/);
    expect(up.seen.some((r) => r.url.includes("redirected"))).toBe(false);
    // The MCP SDK refuses a cross-origin redirect outright: that source never connects.
    const status = (await (await fetch(`${s.url}/status`, { headers: { authorization: `Bearer ${API_KEY}` } })).json()) as {
      sources: { name: string; state: string; error?: string }[];
    };
    expect(status.sources.find((x) => x.name === "redirected")).toMatchObject({
      state: "failed",
      error: expect.stringMatching(/[Rr]edirect/),
    });
    expect((await executeTool(s.url, "redirected_whoami", {}, { authorization: `Bearer ${jwt}` })).status).toBe(404);
    expect(mcp.calls.length).toBe(mcpCalls);
  });

  it("the token goes only to the configured card's origin, not to another one the card names", async () => {
    const before = remote.calls.length;
    expect((await executeTool(s.url, "remote_echo", { arguments: { task: "hi" } }, { authorization: `Bearer ${jwt}` })).status).toBe(200);
    const during = remote.calls.slice(before);
    expect(during.length).toBeGreaterThan(0);
    expect(during.every((c) => c.authorization === CONFIGURED)).toBe(true);
  });

  it("an execution of a forwarding tool carries the JWT caller's token sealed and sends it, never the configured credential", async () => {
    const submitted = await submit(s.url, "fwd_echo", {}, { authorization: `Bearer ${jwt}` });
    expect(submitted.status).toBe(202);
    const { id } = (await submitted.json()) as { id: string };
    const done = await pollUntil(s.url, id, ["succeeded", "failed"], { headers: { authorization: `Bearer ${jwt}` } });
    expect(done.status).toBe("succeeded");
    expect(up.seen.at(-1)?.headers.authorization).toBe(`Bearer ${jwt}`);
    // The echo of the token is redacted from the result the store keeps.
    expect(JSON.stringify(done)).not.toContain(jwt);
    const byKey = await submit(s.url, "fwd_echo", {}, { authorization: `Bearer ${API_KEY}` });
    expect(byKey.status).toBe(202);
    const keyId = ((await byKey.json()) as { id: string }).id;
    expect((await pollUntil(s.url, keyId, ["succeeded"], { headers: { authorization: `Bearer ${API_KEY}` } })).status).toBe("succeeded");
    expect(up.seen.at(-1)?.headers.authorization).toBe(CONFIGURED);
  });

  it("no token in any log line", () => {
    expect(s.logText()).not.toContain(jwt.split(".")[2]);
    expect(s.logText()).not.toContain(API_KEY);
  });
});
