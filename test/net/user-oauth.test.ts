import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolnexusError } from "../../src/core/errors.js";
import type { UserOAuthAuth } from "../../src/core/upstream-auth.js";
import { UserOAuthClient, UserOAuthError } from "../../src/net/user-oauth.js";

// The gateway's OAuth client of an upstream's authorization server, against a real HTTP server
// that misbehaves on purpose: it hangs, answers 500, names another resource, refuses a refresh.
let server: Server;
let base = "";
/** How the server answers each path; a missing path is 404. */
const routes = new Map<string, (req: IncomingMessage, res: ServerResponse, body: string) => void>();
const seen: { path: string; body: string }[] = [];

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function metadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    revocation_endpoint: `${issuer}/revoke`,
    response_types_supported: ["code"],
  };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0] ?? "";
      seen.push({ path, body });
      const route = routes.get(path);
      if (route) route(req, res, body);
      else json(res, 404, { error: "not_found" });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function client(name: string, extra: Partial<UserOAuthAuth> = {}) {
  const issuer = `${base}/${name}`;
  routes.set(`/${name}/.well-known/openid-configuration`, (_q, res) => json(res, 200, metadata(issuer)));
  return new UserOAuthClient({
    mode: "user-oauth",
    source: name,
    resource: `${base}/${name}-mcp`,
    clientId: "gw",
    authorizationServer: issuer,
    timeoutMs: 500,
    ...extra,
  });
}

async function failure(p: Promise<unknown>): Promise<ToolnexusError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolnexusError);
  expect((err as ToolnexusError).code).toBe("UPSTREAM_AUTH_FAILED");
  return err as ToolnexusError;
}

describe("UserOAuthClient against a misbehaving authorization server", () => {
  it("builds the authorization URL: PKCE S256, resource, state, the configured client", async () => {
    const url = new URL((await client("ok").start("https://gw.example/oauth/callback", "st", "v".repeat(43))).url);
    expect(url.origin + url.pathname).toBe(`${base}/ok/authorize`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: "code",
      client_id: "gw",
      redirect_uri: "https://gw.example/oauth/callback",
      state: "st",
      code_challenge_method: "S256",
      resource: `${base}/ok-mcp`,
    });
    expect(url.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
  });

  it("a server that hangs is a timeout, bounded by timeoutMs", async () => {
    routes.set("/hang/.well-known/openid-configuration", () => undefined);
    const c = new UserOAuthClient({
      mode: "user-oauth",
      source: "h",
      resource: `${base}/h`,
      clientId: "gw",
      authorizationServer: `${base}/hang`,
      timeoutMs: 300,
    });
    const err = await failure(c.start("https://gw.example/cb", "s", "v".repeat(43)));
    expect(err.message).toMatch(/did not answer within 300 ms/);
  });

  it("a 500 at the token endpoint fails the login without a body or a code in the message", async () => {
    routes.set("/e500/token", (_q, res) => res.writeHead(500, { "content-type": "text/plain" }).end("secret-looking stack trace"));
    const err = await failure(
      client("e500").finish(new URLSearchParams({ code: "the-code", state: "s" }), "s", "https://gw.example/cb", "v".repeat(43)),
    );
    expect(err.message).toMatch(/HTTP 500/);
    expect(err.message).not.toContain("the-code");
    expect(err.message).not.toContain("stack trace");
  });

  it("a callback whose state is not the one sent is refused before any token request", async () => {
    const before = seen.filter((s) => s.path === "/st/token").length;
    await failure(client("st").finish(new URLSearchParams({ code: "c", state: "other" }), "mine", "https://gw.example/cb", "v".repeat(43)));
    expect(seen.filter((s) => s.path === "/st/token").length).toBe(before);
  });

  it("a refused refresh carries the OAuth error (invalid_grant: a new login), and a rotated refresh token replaces the old", async () => {
    routes.set("/rf/token", (_q, res, body) => {
      const p = new URLSearchParams(body);
      if (p.get("refresh_token") === "old")
        json(res, 200, { access_token: "at2", token_type: "Bearer", expires_in: 60, refresh_token: "new" });
      else json(res, 400, { error: "invalid_grant", error_description: "Token is not active" });
    });
    const c = client("rf");
    const t = await c.refresh("old");
    expect(t).toMatchObject({ accessToken: "at2", refreshToken: "new" });
    expect(seen.at(-1)?.body).toContain(`resource=${encodeURIComponent(`${base}/rf-mcp`)}`);
    const err = await failure(c.refresh("revoked"));
    expect(err).toBeInstanceOf(UserOAuthError);
    expect((err as UserOAuthError).oauthError).toBe("invalid_grant");
    expect(err.message).not.toContain("revoked");
  });

  it("an upstream whose protected-resource metadata names another resource is refused", async () => {
    routes.set("/.well-known/oauth-protected-resource/foreign-mcp", (_q, res) =>
      json(res, 200, { resource: "https://elsewhere.example/mcp", authorization_servers: [`${base}/ok`] }),
    );
    const c = new UserOAuthClient({ mode: "user-oauth", source: "f", resource: `${base}/foreign-mcp`, clientId: "gw", timeoutMs: 500 });
    await failure(c.start("https://gw.example/cb", "s", "v".repeat(43)));
  });

  it("revokes where the server offers it", async () => {
    routes.set("/rv/revoke", (_q, res) => res.writeHead(200).end());
    expect(await client("rv").revoke("rt", "refresh_token")).toBe(true);
    expect(seen.at(-1)).toMatchObject({ path: "/rv/revoke" });
    expect(seen.at(-1)?.body).toContain("token=rt");
  });
});
