import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolnexusError } from "../../src/core/errors.js";
import type { UserOAuthAuth } from "../../src/core/upstream-auth.js";
import { UserOAuthClient, UserOAuthError } from "../../src/net/user-oauth.js";
import { executeTool } from "../helpers/execute.js";
import { freePort } from "../helpers/free-port.js";
import { startServer, type TestServer } from "../helpers/server.js";

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

/** An authorization server at `/<name>` that fetches Client ID Metadata Documents when `cimd` says, and registers clients (RFC 7591). */
function serverAt(name: string, cimd: boolean) {
  const issuer = `${base}/${name}`;
  routes.set(`/${name}/.well-known/openid-configuration`, (_q, res) =>
    json(res, 200, {
      ...metadata(issuer),
      registration_endpoint: `${issuer}/register`,
      code_challenge_methods_supported: ["S256"],
      ...(cimd ? { client_id_metadata_document_supported: true } : {}),
    }),
  );
  routes.set(`/${name}/register`, (_q, res, body) =>
    json(res, 201, { ...(JSON.parse(body) as object), client_id: `registered-at-${name}` }),
  );
  return issuer;
}

/** A client without a configured client id, whose metadata document would be at `clientMetadataUrl`. */
function unregistered(name: string, clientMetadataUrl: string) {
  return new UserOAuthClient(
    { mode: "user-oauth", source: name, resource: `${base}/${name}-mcp`, authorizationServer: `${base}/${name}`, timeoutMs: 500 },
    { clientMetadataUrl },
  );
}

const requestsTo = (path: string) => seen.filter((s) => s.path === path);

describe("the gateway's Client ID Metadata Document as its client", () => {
  // A running gateway serves the document; the authorization server fetches it from there, as
  // a real one does, and refuses a client whose document does not list the redirect URI.
  let gw: TestServer;
  let publicUrl = "";
  let docUrl = "";
  const fetchedDocs: string[] = [];
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const upstreamSaw: (string | undefined)[] = [];

  beforeAll(async () => {
    const issuer = serverAt("cimd", true);
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    docUrl = `${publicUrl}/oauth/client-metadata.json`;
    routes.set("/cimd/authorize", (req, res) => {
      const q = new URL(req.url ?? "", base).searchParams;
      const clientId = q.get("client_id") ?? "";
      const redirectUri = q.get("redirect_uri") ?? "";
      void (async () => {
        fetchedDocs.push(clientId);
        const doc = (await (await fetch(clientId)).json()) as { client_id?: string; redirect_uris?: string[] };
        if (doc.client_id !== clientId || !doc.redirect_uris?.includes(redirectUri)) return json(res, 400, { error: "invalid_request" });
        const code = randomBytes(8).toString("hex");
        codes.set(code, { challenge: q.get("code_challenge") ?? "", redirectUri });
        const back = new URL(redirectUri);
        back.searchParams.set("code", code);
        back.searchParams.set("state", q.get("state") ?? "");
        res.writeHead(302, { location: back.toString() }).end();
      })();
    });
    routes.set("/cimd/token", (req, res, body) => {
      const p = new URLSearchParams(body);
      // A public client: its id in the body, no secret anywhere.
      if (p.get("client_id") !== docUrl || req.headers.authorization) return json(res, 401, { error: "invalid_client" });
      if (p.get("grant_type") === "refresh_token")
        return p.get("refresh_token") === "rt-1"
          ? json(res, 200, { access_token: "at-2", token_type: "Bearer", expires_in: 3600, refresh_token: "rt-2" })
          : json(res, 400, { error: "invalid_grant" });
      const code = codes.get(p.get("code") ?? "");
      codes.delete(p.get("code") ?? "");
      const verified = createHash("sha256")
        .update(p.get("code_verifier") ?? "")
        .digest("base64url");
      if (!code || code.challenge !== verified || code.redirectUri !== p.get("redirect_uri"))
        return json(res, 400, { error: "invalid_grant" });
      // Expired at once (under the refresh margin): the next call refreshes it.
      json(res, 200, { access_token: "at-1", token_type: "Bearer", expires_in: 1, refresh_token: "rt-1" });
    });
    routes.set("/cimd/revoke", (_q, res) => res.writeHead(200).end());
    routes.set("/cimd-api", (req, res) => {
      upstreamSaw.push(req.headers.authorization);
      json(res, 200, { ok: true });
    });
    gw = await startServer(
      {
        config: {
          server: { publicUrl },
          http: [{ name: "up", url: `${base}/cimd-api`, upstreamAuth: { mode: "user-oauth", authorizationServer: issuer } }],
        },
      },
      port,
    );
  });
  afterAll(async () => gw?.close());

  it("logs in, exchanges, refreshes and revokes as client_id = the document's URL; nothing is registered", async () => {
    const pending = (await (await executeTool(gw.url, "up")).json()) as { metadata?: { pending?: { url?: string } } };
    const link = pending.metadata?.pending?.url ?? "";
    expect(link).toContain("/oauth/start?state=");
    // No auth on this gateway: /oauth/start goes straight to the authorization server.
    const start = await fetch(link, { redirect: "manual" });
    expect(start.status).toBe(303);
    const authorize = new URL(start.headers.get("location") ?? "");
    expect(authorize.origin + authorize.pathname).toBe(`${base}/cimd/authorize`);
    expect(authorize.searchParams.get("client_id")).toBe(docUrl);
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${publicUrl}/oauth/callback`);
    const cookie = (start.headers.get("set-cookie") ?? "").split(";")[0] ?? "";

    // The authorization server fetches the document from the gateway and finds the callback in it.
    const consent = await fetch(authorize, { redirect: "manual" });
    expect(consent.status).toBe(302);
    expect(fetchedDocs).toEqual([docUrl]);
    const callback = await fetch(consent.headers.get("location") ?? "", { headers: { cookie } });
    expect(await callback.text()).toContain("Connected");
    expect(callback.status).toBe(200);
    const exchange = new URLSearchParams(requestsTo("/cimd/token").at(-1)?.body);
    expect([exchange.get("grant_type"), exchange.get("client_id")]).toEqual(["authorization_code", docUrl]);

    // The token expired at once: the call refreshes it as the same client, then reaches the upstream with it.
    const called = (await (await executeTool(gw.url, "up")).json()) as { isError?: boolean };
    expect(called.isError).toBeFalsy();
    expect(upstreamSaw).toEqual(["Bearer at-2"]);
    const refresh = new URLSearchParams(requestsTo("/cimd/token").at(-1)?.body);
    expect([refresh.get("grant_type"), refresh.get("client_id")]).toEqual(["refresh_token", docUrl]);

    expect((await fetch(`${gw.url}/me/credentials/up`, { method: "DELETE" })).status).toBe(204);
    const revoked = requestsTo("/cimd/revoke").map((r) => new URLSearchParams(r.body));
    expect(revoked.map((r) => [r.get("token"), r.get("client_id")])).toEqual([
      ["rt-2", docUrl],
      ["at-2", docUrl],
    ]);
    expect(requestsTo("/cimd/register")).toEqual([]);
  });

  it("the authorization server's check is real: a redirect URI the document does not list is refused", async () => {
    const start = await unregistered("cimd", docUrl).start(`${publicUrl}/elsewhere`, "s", "v".repeat(43));
    expect(new URL(start.url).searchParams.get("client_id")).toBe(docUrl);
    expect((await fetch(start.url, { redirect: "manual" })).status).toBe(400);
  });

  it("another replica (a new client object) refreshes as the same client, with no login of its own", async () => {
    const t = await unregistered("cimd", docUrl).refresh("rt-1", { issuer: `${base}/cimd`, clientId: docUrl });
    expect(t.accessToken).toBe("at-2");
    expect(new URLSearchParams(requestsTo("/cimd/token").at(-1)?.body).get("client_id")).toBe(docUrl);
    expect(requestsTo("/cimd/register")).toEqual([]);
  });
});

describe("choosing the gateway's client", () => {
  const doc = "https://gw.example/oauth/client-metadata.json";

  it("a server that fetches no metadata documents: registered as before (RFC 7591)", async () => {
    serverAt("nocimd", false);
    const start = await unregistered("nocimd", doc).start("https://gw.example/oauth/callback", "s", "v".repeat(43));
    expect(new URL(start.url).searchParams.get("client_id")).toBe("registered-at-nocimd");
    expect(start.clientId).toBe("registered-at-nocimd");
    const registration = JSON.parse(requestsTo("/nocimd/register").at(-1)?.body ?? "{}") as Record<string, unknown>;
    expect(registration).toMatchObject({ redirect_uris: ["https://gw.example/oauth/callback"], token_endpoint_auth_method: "none" });
  });

  it("a document URL a server must not take (plain http off loopback, no path): registered instead", async () => {
    serverAt("plain", true);
    const plain = await unregistered("plain", "http://gw.example/oauth/client-metadata.json").clientId("https://gw.example/cb");
    expect(plain).toBe("registered-at-plain");
    serverAt("root", true);
    expect(await unregistered("root", "https://gw.example/").clientId("https://gw.example/cb")).toBe("registered-at-root");
    serverAt("https", true);
    expect(await unregistered("https", doc).clientId("https://gw.example/cb")).toBe(doc);
    expect(requestsTo("/https/register")).toEqual([]);
  });

  it("a configured clientId comes first, even where the server fetches metadata documents", async () => {
    const issuer = serverAt("pre", true);
    const c = new UserOAuthClient(
      { mode: "user-oauth", source: "pre", resource: `${base}/pre-mcp`, authorizationServer: issuer, clientId: "gw", timeoutMs: 500 },
      { clientMetadataUrl: doc },
    );
    expect(await c.clientId("https://gw.example/cb")).toBe("gw");
  });

  it("tokens from another client or server are neither refreshed nor revoked: a new login instead", async () => {
    const issuer = serverAt("other", true);
    routes.set("/other/token", (_q, res) => json(res, 200, { access_token: "x", token_type: "Bearer" }));
    routes.set("/other/revoke", (_q, res) => res.writeHead(200).end());
    const c = unregistered("other", doc);
    const err = await failure(c.refresh("rt", { issuer, clientId: "registered-at-other" }));
    expect((err as UserOAuthError).oauthError).toBe("invalid_client");
    await failure(c.refresh("rt", { issuer: `${base}/elsewhere`, clientId: doc }));
    await failure(c.revoke("rt", "refresh_token", { clientId: "registered-at-other" }));
    expect(requestsTo("/other/token")).toEqual([]);
    expect(requestsTo("/other/revoke")).toEqual([]);
    // The same client: sent.
    expect((await c.refresh("rt", { issuer, clientId: doc })).accessToken).toBe("x");
  });

  it("with a registered client, another replica's login and tokens go through as that replica's client", async () => {
    const issuer = serverAt("replicas", false);
    const asked: URLSearchParams[] = [];
    routes.set("/replicas/token", (req, res, body) => {
      const p = new URLSearchParams(body);
      asked.push(p);
      // Public clients: the id in the body, no secret anywhere.
      if (req.headers.authorization) return json(res, 401, { error: "invalid_client" });
      json(res, 200, { access_token: `at-for-${p.get("client_id")}`, token_type: "Bearer", refresh_token: "rt-2" });
    });
    routes.set("/replicas/revoke", (_q, res) => res.writeHead(200).end());
    // This replica registered a client of its own; another one ("replica-a") started the login.
    const here = unregistered("replicas", doc);
    expect(await here.clientId("https://gw.example/cb")).toBe("registered-at-replicas");
    const params = new URLSearchParams({ code: "c", state: "s" });
    const login = await here.finish(params, "s", "https://gw.example/cb", "v".repeat(43), "replica-a");
    expect(login).toMatchObject({ accessToken: "at-for-replica-a", clientId: "replica-a", issuer });
    expect(asked.at(-1)?.get("client_id")).toBe("replica-a");
    expect(asked.at(-1)?.get("code_verifier")).toBe("v".repeat(43));
    expect((await here.refresh("rt-1", { issuer, clientId: "replica-a" })).accessToken).toBe("at-for-replica-a");
    expect(asked.at(-1)?.get("client_id")).toBe("replica-a");
    expect(await here.revoke("rt-2", "refresh_token", { issuer, clientId: "replica-a" })).toBe(true);
    expect(new URLSearchParams(requestsTo("/replicas/revoke").at(-1)?.body).get("client_id")).toBe("replica-a");
    // Tokens of another server are still never sent.
    await failure(here.refresh("rt", { issuer: `${base}/elsewhere`, clientId: "replica-a" }));
    expect(asked).toHaveLength(2);
    // A replica that started no login yet registers its own client with the callback it knows,
    // then refreshes as the client the tokens were issued to.
    const fresh = new UserOAuthClient(
      { mode: "user-oauth", source: "replicas", resource: `${base}/replicas-mcp`, authorizationServer: issuer, timeoutMs: 500 },
      { clientMetadataUrl: doc, callbackUrl: "https://gw.example/cb" },
    );
    expect((await fresh.refresh("rt-1", { issuer, clientId: "replica-a" })).accessToken).toBe("at-for-replica-a");
    expect(requestsTo("/replicas/register")).toHaveLength(2);
    expect(JSON.parse(requestsTo("/replicas/register").at(-1)?.body ?? "{}")).toMatchObject({ redirect_uris: ["https://gw.example/cb"] });
  });

  it("a callback is finished only as the client its login started with", async () => {
    serverAt("switch", true);
    const c = unregistered("switch", doc);
    const err = await failure(
      c.finish(new URLSearchParams({ code: "c", state: "s" }), "s", "https://gw.example/cb", "v".repeat(43), "registered-at-switch"),
    );
    expect(err.message).toMatch(/another client/);
    expect(requestsTo("/switch/token")).toEqual([]);
  });
});
