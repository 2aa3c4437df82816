import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeTool } from "../helpers/execute.js";
import { addAudience, clientCredentialsToken, keycloakJwt, userToken } from "../helpers/keycloak.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { testTools } from "../helpers/tools.js";

/** A gateway trusting the run's Keycloak, bound to `publicUrl` (its default audience). */
function gateway(publicUrl: string): Promise<TestServer> {
  return startServer({
    tools: testTools(),
    config: {
      server: { publicUrl },
      auth: {
        apiKeys: [],
        jwt: keycloakJwt(),
        policies: [{ id: "users", scopes: ["tools:read"], tools: ["echo"], requireScopes: ["tools:call"] }],
      },
    },
  });
}

const unique = () => Math.random().toString(36).slice(2);
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
let bound: TestServer;
let stranger: TestServer;
const boundUrl = `https://bound-${unique()}.example.test`;

beforeAll(async () => {
  await addAudience(boundUrl);
  bound = await gateway(boundUrl);
  // Never added to any token's audience.
  stranger = await gateway(`https://stranger-${unique()}.example.test`);
});
afterAll(async () => {
  await bound?.close();
  await stranger?.close();
});

describe("Keycloak tokens at the gateway", () => {
  it("a user's token for this resource lists and calls the tool", async () => {
    const { access_token } = await userToken();
    expect((await fetch(`${bound.url}/tools`, { headers: bearer(access_token) })).status).toBe(200);
    expect((await executeTool(bound.url, "echo", { arguments: { text: "hi" } }, bearer(access_token))).status).toBe(200);
  });

  it("the same token at a gateway it does not name in aud is 401 invalid_token", async () => {
    const { access_token } = await userToken();
    const res = await fetch(`${stranger.url}/tools`, { headers: bearer(access_token) });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(res.headers.get("www-authenticate")).toContain("resource_metadata=");
  });

  it("a token without tools:call lists the tool but its call is 403 insufficient_scope", async () => {
    const { access_token, scope } = await userToken({ scope: "openid" });
    expect(scope?.split(" ")).not.toContain("tools:call");
    expect((await fetch(`${bound.url}/tools`, { headers: bearer(access_token) })).status).toBe(200);
    const res = await executeTool(bound.url, "echo", { arguments: { text: "hi" } }, bearer(access_token));
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    expect(res.headers.get("www-authenticate")).toContain('scope="tools:call"');
  });

  it("the portal's document for an OAuth caller holds its tools (what Authorize fetches with)", async () => {
    const { access_token } = await userToken();
    const res = await fetch(`${bound.url}/openapi.json`, { headers: bearer(access_token) });
    expect(res.status).toBe(200);
    expect(Object.keys(((await res.json()) as { paths: Record<string, unknown> }).paths)).toContain("/tools/echo/execute");
  });

  it("a machine token by client credentials calls the tool (what the Python and Go clients do)", async () => {
    const { access_token } = await clientCredentialsToken();
    expect((await executeTool(bound.url, "echo", { arguments: { text: "hi" } }, bearer(access_token))).status).toBe(200);
  });
});
