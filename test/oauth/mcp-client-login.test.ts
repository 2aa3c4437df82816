import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer, type ToolnexusServer } from "../../src/server/build-server.js";
import { freePort } from "../helpers/free-port.js";
import { addAudience, keycloak, keycloakJwt, loginWithForm } from "../helpers/keycloak.js";
import { testTools } from "../helpers/tools.js";

/**
 * An MCP client's OAuth state, kept in memory: the SDK's own provider contract and nothing
 * that knows toolnexus. The browser step is recorded, for the test to drive.
 */
class MemoryProvider implements OAuthClientProvider {
  client?: StoredOAuthClientInformation;
  saved?: StoredOAuthTokens;
  verifier = "";
  discovery?: OAuthDiscoveryState;
  authorizationUrl?: URL;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "oauth login test",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

let app: ToolnexusServer;
let base = "";

beforeAll(async () => {
  // publicUrl must be known before the server starts: it is the resource the client checks.
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  await addAudience(`${base}/mcp`);
  app = await buildServer({
    logger: { level: "silent" },
    tools: testTools(),
    config: {
      server: { publicUrl: base },
      auth: {
        apiKeys: [],
        jwt: keycloakJwt(),
        policies: [{ id: "users", scopes: ["tools:read"], tools: ["echo"], requireScopes: ["tools:call"] }],
      },
    },
  });
  await app.listen({ host: "127.0.0.1", port });
  await app.toolnexus.ready;
});
afterAll(async () => {
  await app?.close();
});

describe("a real MCP client logs in with OAuth and calls tools", () => {
  it("401 → metadata → registration → PKCE login → token → tools/list and tools/call", async () => {
    const provider = new MemoryProvider(`http://127.0.0.1:${await freePort()}/callback`);
    const endpoint = new URL(`${base}/mcp`);
    const first = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
    await expect(new Client({ name: "oauth-test", version: "1.0.0" }).connect(first)).rejects.toThrow(UnauthorizedError);

    // The SDK registered itself (anonymous DCR) and sent the user to the authorization server.
    expect(provider.client?.client_id).toEqual(expect.any(String));
    const authUrl = provider.authorizationUrl;
    expect(authUrl?.origin).toBe(keycloak().url);
    expect(authUrl?.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authUrl?.searchParams.get("resource")).toBe(`${base}/mcp`);
    expect(authUrl?.searchParams.get("scope")?.split(" ")).toEqual(expect.arrayContaining(["tools:call", "tools:read"]));

    const callback = await loginWithForm(String(authUrl));
    await first.finishAuth(callback.searchParams);
    const token = provider.saved?.access_token ?? "";
    expect(decodeJwt(token).aud).toContain(`${base}/mcp`);

    const client = new Client({ name: "oauth-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["echo"]);
      const result = await client.callTool({ name: "echo", arguments: { text: "hi from oauth" } });
      expect(JSON.stringify(result.content)).toContain("hi from oauth");
    } finally {
      await client.close();
    }
  });
});
