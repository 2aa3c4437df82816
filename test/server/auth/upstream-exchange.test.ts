import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { executeTool } from "../../helpers/execute.js";
import { pollUntil, submit } from "../../helpers/executions.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { CLIENT_ID, CLIENT_SECRET, startTokenServer, type TokenServer, jwtAuthOf } from "../../helpers/token-server.js";
import { startHttpMcpServer, type HttpMcpServer, type SeenCall } from "../../fixtures/mcp/http-server.js";
import { startUpstream, type Upstream } from "../../sources/http/upstream.js";

const API_KEY = "gateway-key-0123456789abcdef";
const CONFIGURED = "Bearer configured-upstream-secret";
let as: TokenServer;
let up: Upstream;
let mcp: HttpMcpServer;
let s: TestServer;
let jwt: string;
let redirector: Server;

const exchange = (audience: string) => ({ mode: "exchange" as const, audience, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });

beforeAll(async () => {
  as = await startTokenServer();
  jwt = await as.sign({ sub: "alice", groups: ["eng"] });
  up = await startUpstream();
  mcp = await startHttpMcpServer();
  // Another origin that redirects every request to the upstream.
  redirector = createServer((req, res) => res.writeHead(307, { location: `${up.url}/echo/redirected` }).end());
  await new Promise<void>((r) => redirector.listen(0, "127.0.0.1", r));
  const front = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
  const headers = { Authorization: CONFIGURED };
  s = await startServer({
    config: {
      auth: {
        apiKeys: [{ id: "ci", key: API_KEY, operator: true }],
        jwt: jwtAuthOf(as),
        policies: [{ id: "eng", groups: ["eng"], tools: ["*"] }],
      },
      http: [
        // The token endpoint is discovered from auth.jwt.issuer's metadata.
        { name: "x_echo", url: `${up.url}/echo/x`, headers, upstreamAuth: exchange("http-upstream") },
        { name: "p_echo", url: `${up.url}/echo/p`, headers, upstreamAuth: { mode: "passthrough" } },
        { name: "x_slow_as", url: `${up.url}/echo/slow-as`, headers, upstreamAuth: { ...exchange("http-upstream"), timeoutMs: 300 } },
        {
          name: "x_redirect",
          url: `${front}/echo/r`,
          headers,
          resultMode: "status+text",
          upstreamAuth: { ...exchange("http-upstream"), tokenEndpoint: as.tokenEndpoint },
        },
      ],
      mcpServers: { xm: { url: mcp.url, headers, upstreamAuth: { ...exchange("mcp-upstream"), tokenEndpoint: as.tokenEndpoint } } },
    },
  });
});
afterAll(async () => {
  await s.close();
  await mcp.close();
  redirector.closeAllConnections();
  await new Promise((r) => redirector.close(r));
  await up.close();
  await as.close();
});
beforeEach(() => {
  as.mode = "ok";
});

/** Calls `tool` as `authorization` and returns what the upstream received as Authorization (its echo to the caller is redacted). */
async function httpAuth(tool: string, authorization: string): Promise<string | undefined> {
  const res = await executeTool(s.url, tool, {}, { authorization });
  expect(res.status).toBe(200);
  return up.seen.at(-1)?.headers.authorization;
}

describe("upstreamAuth: exchange", () => {
  it("an HTTP upstream gets a token for its own audience and the caller's subject, never the caller's token; the second call is a cache hit", async () => {
    const before = as.requests.length;
    const res = await executeTool(s.url, "x_echo", {}, { authorization: `Bearer ${jwt}` });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { output: string };
    const seen = up.seen.filter((r) => r.url === "/echo/x").at(-1);
    const sent = seen?.headers.authorization ?? "";
    expect(sent.startsWith("Bearer ")).toBe(true);
    const token = sent.slice(7);
    expect(token).not.toBe(jwt);
    expect(await as.verify(token)).toMatchObject({ sub: "alice", aud: "http-upstream" });
    // The upstream echoed the request: the exchanged token never comes back to the caller.
    expect(body.output).not.toContain(token);
    expect(body.output).toContain("Bearer [redacted]");
    expect(as.requests.length).toBe(before + 1);
    expect(as.requests.at(-1)?.form.subject_token).toBe(jwt);
    // The upstream saw the same exchanged token again (the echo to the caller is redacted).
    await executeTool(s.url, "x_echo", {}, { authorization: `Bearer ${jwt}` });
    expect(up.seen.filter((r) => r.url === "/echo/x").at(-1)?.headers.authorization).toBe(sent);
    expect(as.requests.length).toBe(before + 1);
    expect(s.logText()).not.toContain(token);
    expect(s.logText()).not.toContain(jwt);
  });

  it("a remote MCP server gets a token for its own audience on tools/call", async () => {
    const res = await executeTool(s.url, "xm_whoami", {}, { authorization: `Bearer ${jwt}` });
    expect(res.status).toBe(200);
    const seen = mcp.calls.at(-1) as SeenCall;
    const token = (seen.authorization ?? "").slice(7);
    expect(token).not.toBe(jwt);
    expect(decodeJwt(token)).toMatchObject({ sub: "alice", aud: "mcp-upstream" });
    expect(as.requests.at(-1)?.form.audience).toBe("mcp-upstream");
  });

  it("a failed exchange is 502 UPSTREAM_AUTH_FAILED and reaches no upstream; no other credential is tried", async () => {
    const bob = await as.sign({ sub: "bob", groups: ["eng"] });
    const httpBefore = up.seen.length;
    const mcpBefore = mcp.calls.length;
    for (const mode of ["fail", "refuse", "wrong-aud"] as const) {
      as.mode = mode;
      for (const tool of ["x_echo", "xm_whoami"]) {
        const res = await executeTool(s.url, tool, {}, { authorization: `Bearer ${bob}` });
        expect(res.status).toBe(502);
        const problem = (await res.json()) as { code: string; detail: string };
        expect(problem.code).toBe("UPSTREAM_AUTH_FAILED");
        expect(JSON.stringify(problem)).not.toContain(bob);
      }
    }
    expect(up.seen.length).toBe(httpBefore);
    expect(mcp.calls.length).toBe(mcpBefore);
    expect(s.logText()).not.toContain(bob);
  });

  it("an API key caller never goes upstream and causes no exchange: the configured credentials apply", async () => {
    const before = as.requests.length;
    expect(await httpAuth("x_echo", `Bearer ${API_KEY}`)).toBe(CONFIGURED);
    expect(as.requests.length).toBe(before);
    expect(up.seen.some((r) => JSON.stringify(r.headers).includes(API_KEY))).toBe(false);
  });

  it("passthrough sends the caller's own token", async () => {
    expect(await httpAuth("p_echo", `Bearer ${jwt}`)).toBe(`Bearer ${jwt}`);
  });

  it("an execution exchanges the caller's token it carries sealed, and its result holds no token", async () => {
    const carol = await as.sign({ sub: "carol", groups: ["eng"] });
    const res = await submit(s.url, "x_echo", {}, { authorization: `Bearer ${carol}` });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const done = await pollUntil(s.url, id, ["succeeded", "failed"], { headers: { authorization: `Bearer ${carol}` } });
    expect(done.status).toBe("succeeded");
    const token = (up.seen.filter((r) => r.url === "/echo/x").at(-1)?.headers.authorization ?? "").slice(7);
    expect(await as.verify(token)).toMatchObject({ sub: "carol", aud: "http-upstream" });
    expect(JSON.stringify(done)).not.toContain(token);
    expect(as.requests.at(-1)?.form.subject_token).toBe(carol);
  });

  it("a token endpoint that does not answer is 502 within the exchange's timeoutMs, and the upstream is not called", async () => {
    as.mode = "hang";
    const before = up.seen.length;
    const res = await executeTool(s.url, "x_slow_as", {}, { authorization: `Bearer ${await as.sign({ sub: "gus", groups: ["eng"] })}` });
    expect(res.status).toBe(502);
    expect(((await res.json()) as { code: string; detail: string }).detail).toMatch(/no answer within 300 ms/);
    expect(up.seen.length).toBe(before);
  });

  it("an exchanged token never follows a redirect to another origin", async () => {
    const res = await executeTool(s.url, "x_redirect", {}, { authorization: `Bearer ${jwt}` });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { output: string }).output).toMatch(/^HTTP 307/);
    expect(up.seen.some((r) => r.url.includes("redirected"))).toBe(false);
  });
});
