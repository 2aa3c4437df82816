import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeTool } from "../../helpers/execute.js";
import { jwtConfig, startIdp, type TestIdp, type TestKey } from "../../helpers/jwks.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { tool } from "../../helpers/static-source.js";

const PUBLIC = "https://gw.example.test";
let idp: TestIdp;
let key: TestKey;
let s: TestServer;

const POLICIES = [
  { id: "readers", scopes: ["tools:read"], tools: ["echo"], requireScopes: ["tools:call"] },
  { id: "ops", groups: ["ops"], tools: ["*"], operator: true },
];

beforeAll(async () => {
  idp = await startIdp();
  key = await idp.key("k1");
  idp.publish([key]);
  // No audience: with publicUrl it defaults to this resource's URLs.
  const { audience: _, ...jwt } = jwtConfig(idp);
  s = await startServer({
    config: { server: { publicUrl: PUBLIC }, auth: { apiKeys: [], jwt, policies: POLICIES } },
    tools: [tool("echo", "native")],
  });
});
afterAll(async () => {
  await s.close();
  await idp.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const token = (scope: string, audience = PUBLIC, expiresIn: string | number = "1h") =>
  idp.sign({ sub: "alice", scope }, key, { audience, expiresIn });

describe("RFC 9728 protected-resource metadata", () => {
  it("describes the REST API and the MCP endpoint from the config", async () => {
    for (const [path, resource] of [
      ["", PUBLIC],
      ["/mcp", `${PUBLIC}/mcp`],
    ]) {
      const res = await fetch(`${s.url}/.well-known/oauth-protected-resource${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        resource,
        authorization_servers: [idp.issuer],
        scopes_supported: ["tools:call", "tools:read"],
        bearer_methods_supported: ["header"],
      });
    }
  });

  it("derives the resource from the request only through a trusted proxy", async () => {
    const { audience: _, ...jwt } = jwtConfig(idp);
    for (const trustProxy of [true, false]) {
      const t = await startServer({
        config: { server: { trustProxy }, auth: { apiKeys: [], jwt: { ...jwt, audience: "toolnexus" }, policies: POLICIES } },
        tools: [],
      });
      try {
        const res = await fetch(`${t.url}/.well-known/oauth-protected-resource/mcp`, {
          headers: { "x-forwarded-host": "proxy.example.test", "x-forwarded-proto": "https" },
        });
        const doc = (await res.json()) as { resource: string };
        expect(doc.resource).toBe(trustProxy ? "https://proxy.example.test/mcp" : `${t.url}/mcp`);
      } finally {
        await t.close();
      }
    }
  });

  it("odd metadata paths get a problem, never a document for another resource", async () => {
    for (const odd of ["/other", "/mcp/x", "/%2e%2e/mcp", "/mcp%00"]) {
      const res = await fetch(`${s.url}/.well-known/oauth-protected-resource${odd}`);
      expect(res.status, odd).toBeGreaterThanOrEqual(400);
      expect(res.headers.get("content-type"), odd).toContain("application/problem+json");
    }
  });

  it("is 404 without auth.jwt", async () => {
    const t = await startServer({ config: {}, tools: [] });
    try {
      expect((await fetch(`${t.url}/.well-known/oauth-protected-resource`)).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});

describe("challenges", () => {
  it("a 401 without a token names the metadata and the scopes (REST and /mcp), with no error", async () => {
    const rest = await fetch(`${s.url}/tools`);
    expect(rest.status).toBe(401);
    expect(rest.headers.get("www-authenticate")).toBe(
      `Bearer realm="toolnexus", resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource", scope="tools:call tools:read"`,
    );
    const mcp = await fetch(`${s.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get("www-authenticate")).toBe(
      `Bearer realm="toolnexus", resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource/mcp", scope="tools:call tools:read"`,
    );
  });

  it("a token for another audience is 401 invalid_token with the challenge", async () => {
    const res = await fetch(`${s.url}/tools`, { headers: bearer(await token("tools:read", "https://other.example.test")) });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(
      /^Bearer realm="toolnexus", error="invalid_token", resource_metadata="[^"]+", scope=/,
    );
    expect(((await res.json()) as { detail: string }).detail).toBe('The token\'s "aud" claim is not accepted');
  });

  it("an expired token is 401 invalid_token", async () => {
    const expired = await token("tools:read", PUBLIC, Math.floor(Date.now() / 1000) - 60);
    const res = await fetch(`${s.url}/tools`, { headers: bearer(expired) });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(((await res.json()) as { detail: string }).detail).toBe("The token has expired");
  });

  it("accepts the resource URL and the MCP endpoint's as audiences by default", async () => {
    for (const aud of [PUBLIC, `${PUBLIC}/mcp`]) {
      expect((await fetch(`${s.url}/tools`, { headers: bearer(await token("tools:read", aud)) })).status).toBe(200);
    }
  });
});

describe("policies[].requireScopes", () => {
  it("lists the tool but refuses its call with 403 insufficient_scope naming the missing scope", async () => {
    const readOnly = await token("tools:read");
    const list = await fetch(`${s.url}/tools`, { headers: bearer(readOnly) });
    expect(((await list.json()) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(["echo"]);
    const res = await executeTool(s.url, "echo", {}, bearer(readOnly));
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer realm="toolnexus", error="insufficient_scope", resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource", scope="tools:call"`,
    );
    expect(((await res.json()) as { code: string }).code).toBe("INSUFFICIENT_SCOPE");
  });

  it("over /mcp the same call is a 403 challenge naming the MCP endpoint's metadata (step-up), not a JSON-RPC result", async () => {
    const res = await fetch(`${s.url}/mcp`, {
      method: "POST",
      headers: { ...bearer(await token("tools:read")), "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: {} } }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer realm="toolnexus", error="insufficient_scope", resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource/mcp", scope="tools:call"`,
    );
  });

  it("runs the call once the token carries the scope", async () => {
    const res = await executeTool(s.url, "echo", {}, bearer(await token("tools:read tools:call")));
    expect(res.status).toBe(200);
  });

  it("a policy without requireScopes grants its tools as before", async () => {
    const res = await executeTool(s.url, "echo", {}, bearer(await idp.sign({ sub: "bob", groups: ["ops"] }, key, { audience: PUBLIC })));
    expect(res.status).toBe(200);
  });
});
