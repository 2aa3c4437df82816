import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRemoteJWKSet, decodeJwt, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeTool } from "../helpers/execute.js";
import { keycloak, REALM, userToken } from "../helpers/keycloak.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { startHttpMcpServer, type HttpMcpServer } from "../fixtures/mcp/http-server.js";
import { startUpstream, type Upstream } from "../sources/http/upstream.js";

// upstreamAuth exchange end to end against Keycloak 26 (standard token exchange V2): the realm's
// toolnexus-gateway client exchanges alice's token for mcp-upstream and http-upstream.
let up: Upstream;
let mcp: HttpMcpServer;
let s: TestServer;
let counter: Server;
let tokenRequests = 0;
let alice: string;

/** Verifies a token Keycloak issued (signature, issuer) and returns its claims. */
async function issued(token: string) {
  const kc = keycloak();
  const jwks = createRemoteJWKSet(new URL(`${kc.issuer}/protocol/openid-connect/certs`));
  return (await jwtVerify(token, jwks, { issuer: kc.issuer })).payload;
}

beforeAll(async () => {
  const kc = keycloak();
  up = await startUpstream();
  mcp = await startHttpMcpServer();
  // A counting pass-through in front of Keycloak's token endpoint: how many exchanges really happen.
  const tokenEndpoint = `${kc.issuer}/protocol/openid-connect/token`;
  counter = createServer((req, res) => {
    tokenRequests++;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void fetch(tokenEndpoint, {
        method: "POST",
        headers: {
          "content-type": String(req.headers["content-type"]),
          ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        },
        body: Buffer.concat(chunks),
      }).then(async (r) =>
        res.writeHead(r.status, { "content-type": r.headers.get("content-type") ?? "application/json" }).end(await r.text()),
      );
    });
  });
  await new Promise<void>((r) => counter.listen(0, "127.0.0.1", r));
  const counted = `http://127.0.0.1:${(counter.address() as AddressInfo).port}/token`;
  const gateway = { clientId: REALM.gateway.clientId, clientSecret: REALM.gateway.clientSecret };
  s = await startServer({
    config: {
      auth: {
        apiKeys: [],
        jwt: {
          issuer: kc.issuer,
          audience: REALM.gateway.clientId,
          jwksUri: `${kc.issuer}/protocol/openid-connect/certs`,
          clockTolerance: 5,
          requireExp: true,
          groupsClaim: "groups",
          jwksTimeoutMs: 5000,
        },
        policies: [{ id: "eng", groups: [REALM.user.group], tools: ["*"] }],
      },
      http: [
        // Token endpoint discovered from the issuer's openid-configuration.
        { name: "kc_http", url: `${up.url}/echo/kc`, upstreamAuth: { mode: "exchange", audience: "http-upstream", ...gateway } },
        // An audience the gateway's client may not reach: Keycloak refuses the exchange.
        { name: "kc_nobody", url: `${up.url}/echo/nobody`, upstreamAuth: { mode: "exchange", audience: "toolnexus-cli", ...gateway } },
        {
          name: "kc_badsecret",
          url: `${up.url}/echo/badsecret`,
          upstreamAuth: { mode: "exchange", audience: "http-upstream", clientId: REALM.gateway.clientId, clientSecret: "not-the-secret" },
        },
      ],
      mcpServers: {
        kcm: { url: mcp.url, upstreamAuth: { mode: "exchange", audience: "mcp-upstream", tokenEndpoint: counted, ...gateway } },
      },
    },
  });
  alice = (await userToken({ scope: "openid tools:read tools:call" })).access_token;
});
afterAll(async () => {
  await s?.close();
  await mcp?.close();
  await up?.close();
  counter?.closeAllConnections();
  await new Promise((r) => counter?.close(r));
});

describe("upstreamAuth exchange with Keycloak 26", () => {
  it("a remote MCP tool's server gets a Keycloak token for mcp-upstream with alice as subject; the second call is a cache hit", async () => {
    const res = await executeTool(s.url, "kcm_whoami", {}, { authorization: `Bearer ${alice}` });
    expect(res.status).toBe(200);
    const sent = mcp.calls.at(-1)?.authorization ?? "";
    const token = sent.slice("Bearer ".length);
    expect(token).not.toBe(alice);
    const claims = await issued(token);
    expect(claims.aud).toBe("mcp-upstream");
    expect(claims.sub).toBe(decodeJwt(alice).sub);
    expect(tokenRequests).toBe(1);
    expect((await executeTool(s.url, "kcm_whoami", {}, { authorization: `Bearer ${alice}` })).status).toBe(200);
    expect(mcp.calls.at(-1)?.authorization).toBe(sent);
    expect(tokenRequests).toBe(1);
  });

  it("an HTTP tool's upstream gets a Keycloak token for http-upstream (endpoint discovered from the issuer)", async () => {
    const res = await executeTool(s.url, "kc_http", {}, { authorization: `Bearer ${alice}` });
    expect(res.status).toBe(200);
    const token = String(up.seen.at(-1)?.headers.authorization).slice("Bearer ".length);
    expect(token).not.toBe(alice);
    const claims = await issued(token);
    expect(claims.aud).toBe("http-upstream");
    expect(claims.sub).toBe(decodeJwt(alice).sub);
  });

  it("an exchange Keycloak refuses (an audience out of reach, a wrong client secret) is 502 and reaches no upstream", async () => {
    const before = up.seen.length;
    for (const tool of ["kc_nobody", "kc_badsecret"]) {
      const res = await executeTool(s.url, tool, {}, { authorization: `Bearer ${alice}` });
      expect(res.status).toBe(502);
      const problem = (await res.json()) as { code: string; detail: string };
      expect(problem.code).toBe("UPSTREAM_AUTH_FAILED");
      expect(problem.detail).toMatch(/the authorization server refused/);
      expect(JSON.stringify(problem)).not.toContain(alice);
    }
    expect(up.seen.length).toBe(before);
    expect(s.logText()).not.toContain(alice);
  });
});
