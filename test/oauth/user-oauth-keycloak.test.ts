import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { VaultCipher, ownerId } from "../../src/server/credentials/vault-cipher.js";
import type { StoredCredential } from "../../src/server/credentials/vault.js";
import { executeTool } from "../helpers/execute.js";
import { acceptedExecution, pollUntil, submit } from "../helpers/executions.js";
import { freePort } from "../helpers/free-port.js";
import { addAudience, keycloak, keycloakJwt, REALM, userToken } from "../helpers/keycloak.js";
import { createUpstreamRealm, deleteUpstreamRealm, UPSTREAM_REALM } from "../helpers/keycloak-upstream.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { startBearerMcpServer, type BearerMcpServer } from "../fixtures/mcp/bearer-mcp-server.js";

// upstreamAuth user-oauth end to end with real parts: Keycloak 26 as the upstream's own
// authorization server (a realm of this file's own), a v2-SDK MCP server that checks bearer
// tokens for its resource, and Debian's Chromium completing the login pages for two users. Two
// replicas share the vault in Redis: logins complete through A, calls run on either.
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const STATE_SECRET = randomBytes(24).toString("hex");
const KEYS = { alice: "alice-key-0123456789abcdef", bob: "bob-key-0123456789abcdef" } as const;
type Who = keyof typeof KEYS;
const TOOL = "up_whoami";
const REALM_NAME = `upstream-${randomBytes(4).toString("hex")}`;
const REDIS_URL = `${inject("redisUrl")}/7`;
let s: TestServer;
let b: TestServer;
let up: BearerMcpServer;
let browser: Browser;
let redis: Redis;
let issuer: string;
const auditLines: string[] = [];

const auth = (who: Who) => ({ authorization: `Bearer ${KEYS[who]}` });

interface CallBody {
  isError?: boolean;
  output?: string;
  metadata?: { pending?: { kind: string; url?: string; data?: { url?: string; source?: string } } };
}

async function call(who: Who): Promise<CallBody> {
  const res = await executeTool(s.url, TOOL, {}, auth(who));
  expect(res.status).toBe(200);
  return (await res.json()) as CallBody;
}

/** The login link a call answers with (it must be one). */
async function loginLink(who: Who): Promise<string> {
  const body = await call(who);
  expect(body.metadata?.pending?.kind).toBe("login");
  const url = body.metadata?.pending?.data?.url ?? "";
  expect(url.startsWith(`${s.url}/oauth/start?state=`)).toBe(true);
  return url;
}

/** Signs in to the gateway on the link's page as `gatewayUser`; the page is then Keycloak's login form (or the refusal). */
async function signIn(ctx: BrowserContext, link: string, gatewayUser: Who) {
  const page = await ctx.newPage();
  await page.goto(link);
  await page.fill("#credential", KEYS[gatewayUser]);
  // What follows waits for its own page: Keycloak's form, or the refusal.
  await page.click("#continue");
  return page;
}

/** The whole login in a fresh browser: the gateway's sign-in, then Keycloak's form as the same user. */
async function login(who: Who, link?: string): Promise<string> {
  const ctx = await browser.newContext();
  try {
    const page = await signIn(ctx, link ?? (await loginLink(who)), who);
    await page.waitForSelector("#kc-login");
    await page.fill("#username", UPSTREAM_REALM[who].username);
    await page.fill("#password", UPSTREAM_REALM[who].password);
    await Promise.all([page.waitForURL(/\/oauth\/callback/), page.click("#kc-login")]);
    return (await page.textContent("#outcome")) ?? "";
  } finally {
    await ctx.close();
  }
}

/** What the vault in Redis holds for `who` (decrypted with the test's own stateSecret, as a replica would). */
async function stored(who: Who, source = "up"): Promise<StoredCredential | undefined> {
  const owner = ownerId(`apiKey:${who}`);
  const blob = await redis.hget(`toolnexus:vault:${owner}`, source);
  return blob === null ? undefined : new VaultCipher(STATE_SECRET).decrypt<StoredCredential>(owner, source, blob);
}

/** Every key and value of the test's Redis database, as text. */
async function redisDump(): Promise<string> {
  const keys = await redis.keys("*");
  let dump = keys.join("\n");
  for (const k of keys) {
    const type = await redis.type(k);
    if (type === "hash") dump += JSON.stringify(await redis.hgetall(k));
    else if (type === "string") dump += (await redis.get(k)) ?? "";
    else if (type === "list") dump += (await redis.lrange(k, 0, -1)).join("\n");
  }
  return dump;
}

/** A refresh_token grant at Keycloak, as the gateway's client: its status. */
async function refreshStatus(refreshToken: string): Promise<number> {
  const res = await fetch(`${issuer}/protocol/openid-connect/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: UPSTREAM_REALM.client.clientId,
      client_secret: UPSTREAM_REALM.client.clientSecret,
    }),
  });
  return res.status;
}

/** One tools/call on `/mcp` in `era`, as a stateless client sends it: the JSON-RPC response. */
async function mcpCall(
  who: Who,
  era: "2025-11-25" | "2026-07-28",
): Promise<{ result?: Record<string, unknown>; error?: { code: number; data?: unknown } }> {
  const modern = era === "2026-07-28";
  const _meta = modern
    ? {
        "io.modelcontextprotocol/protocolVersion": era,
        "io.modelcontextprotocol/clientInfo": { name: "login-test", version: "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": { elicitation: { url: {} } },
      }
    : undefined;
  const res = await fetch(`${s.url}/mcp`, {
    method: "POST",
    headers: {
      ...auth(who),
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": era,
      ...(modern ? { "mcp-method": "tools/call", "mcp-name": TOOL } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: TOOL, arguments: {}, ...(_meta ? { _meta } : {}) },
    }),
  });
  const text = await res.text();
  const data = res.headers.get("content-type")?.includes("text/event-stream") ? (/^data: (.*)$/m.exec(text)?.[1] ?? "null") : text;
  return JSON.parse(data) as { result?: Record<string, unknown>; error?: { code: number; data?: unknown } };
}

/** The call on an execution, to its end or its question. */
async function executionCall(who: Who) {
  const { id } = await acceptedExecution(await submit(s.url, TOOL, {}, auth(who)));
  return pollUntil(s.url, id, ["succeeded", "failed", "input_required"], { headers: auth(who) });
}

beforeAll(async () => {
  const kc = keycloak();
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  issuer = await createUpstreamRealm(kc, REALM_NAME, `${publicUrl}/oauth/callback`);
  up = await startBearerMcpServer(issuer, UPSTREAM_REALM.audience);
  redis = new Redis(REDIS_URL);
  // JWT callers too: the gateway's own realm, whose tokens name this gateway's URL.
  await addAudience(publicUrl);
  const config = {
    server: { publicUrl, stateSecret: STATE_SECRET },
    auth: {
      apiKeys: [
        { id: "alice", key: KEYS.alice, operator: true },
        { id: "bob", key: KEYS.bob },
      ],
      jwt: keycloakJwt(),
      policies: [{ id: "eng", groups: [REALM.user.group], tools: ["*"] }],
    },
    redis: { url: REDIS_URL },
    audit: { sink: "stdout" as const, arguments: "full" as const },
    mcpServers: {
      up: { url: up.url, upstreamAuth: { mode: "user-oauth" as const, ...UPSTREAM_REALM.client } },
      // No client id: the gateway registers itself (RFC 7591) at the realm's registration endpoint.
      dyn: { url: up.url, upstreamAuth: { mode: "user-oauth" as const, scopes: [UPSTREAM_REALM.dynamicScope] } },
    },
  };
  const auditDestination = { write: (line: string) => auditLines.push(line) > 0 };
  s = await startServer({ config, auditDestination }, port);
  b = await startServer({ config, auditDestination });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await b?.close();
  await up?.close();
  redis?.disconnect();
  await deleteUpstreamRealm(keycloak(), REALM_NAME).catch(() => undefined);
});

describe("user-oauth with Keycloak as the upstream's authorization server", () => {
  const subs: Partial<Record<Who, string>> = {};

  it("before the login every transport asks for it: REST, an execution, /mcp 2025-11-25 (-32042) and 2026 (URL elicitation)", async () => {
    await loginLink("alice");
    const execution = (await executionCall("alice")) as unknown as Record<string, unknown>;
    expect(execution.status).toBe("input_required");
    expect(JSON.stringify(execution)).toMatch(/"mode":"url".*\/oauth\/start\?state=/);
    const legacy = await mcpCall("alice", "2025-11-25");
    expect(legacy.error?.code).toBe(-32042);
    const elicitations = (legacy.error?.data as { elicitations: { mode: string; url: string }[] }).elicitations;
    expect(elicitations[0]?.mode).toBe("url");
    expect(elicitations[0]?.url.startsWith(`${s.url}/oauth/start?state=`)).toBe(true);
    const modern = await mcpCall("alice", "2026-07-28");
    expect(modern.result?.resultType).toBe("input_required");
    expect(JSON.stringify(modern.result?.inputRequests)).toMatch(/"mode":"url".*\/oauth\/start\?state=/);
    expect(up.calls).toHaveLength(0);
  });

  it("two users log in through Chromium; each call reaches the upstream with that user's own token", async () => {
    for (const who of ["alice", "bob"] as const) {
      expect(await login(who)).toMatch(/Connected/);
      const body = await call(who);
      expect(body.isError).toBeFalsy();
      const seen = up.calls.at(-1);
      subs[who] = seen?.sub;
      expect(decodeJwt(seen?.token ?? "").aud).toContain(UPSTREAM_REALM.audience);
    }
    expect(subs.alice).toBeTruthy();
    expect(subs.bob).toBeTruthy();
    expect(subs.alice).not.toBe(subs.bob);
    expect((await call("alice")).isError).toBeFalsy();
    expect(up.calls.at(-1)?.sub).toBe(subs.alice);
    // The same on every other transport, each with its caller's own token.
    for (const who of ["alice", "bob"] as const) {
      expect((await executionCall(who)).status).toBe("succeeded");
      expect(up.calls.at(-1)?.sub).toBe(subs[who]);
      for (const era of ["2025-11-25", "2026-07-28"] as const) {
        const r = await mcpCall(who, era);
        expect(r.result?.isError).toBeFalsy();
        expect(JSON.stringify(r.result?.content)).toContain(`you are ${subs[who]}`);
      }
    }
    // A login completed through replica A serves a call on replica B.
    const onB = await executeTool(b.url, TOOL, {}, auth("bob"));
    expect(((await onB.json()) as CallBody).output).toContain(`you are ${subs.bob}`);
    expect(up.calls.at(-1)?.sub).toBe(subs.bob);
    const list = await (await fetch(`${b.url}/me/credentials`, { headers: auth("bob") })).text();
    expect(JSON.parse(list)).toMatchObject({
      credentials: [
        { source: "dyn", mode: "user-oauth", status: "not-connected" },
        { source: "up", mode: "user-oauth", status: "connected" },
      ],
    });
  }, 90_000);

  it("nothing of a token in responses, logs, audit lines, /status, /metrics or a dump of every Redis key", async () => {
    const tokens = new Set(up.calls.map((c) => c.token));
    for (const who of ["alice", "bob"] as const) {
      const c = await stored(who);
      if (c?.refreshToken) tokens.add(c.refreshToken);
      if (c?.accessToken) tokens.add(c.accessToken);
    }
    expect(tokens.size).toBeGreaterThan(2);
    const status = await (await fetch(`${s.url}/status`, { headers: auth("alice") })).text();
    const metrics = await (await fetch(`${s.url}/metrics`, { headers: auth("alice") })).text();
    const list = await (await fetch(`${s.url}/me/credentials`, { headers: auth("alice") })).text();
    expect(auditLines.length).toBeGreaterThan(0);
    const everything = [status, metrics, list, s.logText(), b.logText(), auditLines.join("\n"), await redisDump()].join("\n");
    for (const t of tokens) expect(everything).not.toContain(t);
  }, 90_000);

  it("without a configured client the gateway registers one (RFC 7591) and the login works the same", async () => {
    const res = await executeTool(s.url, "dyn_whoami", {}, auth("alice"));
    const link = ((await res.json()) as CallBody).metadata?.pending?.data?.url ?? "";
    expect(link).toContain("/oauth/start?state=");
    expect(await login("alice", link)).toMatch(/Connected/);
    const body = (await (await executeTool(s.url, "dyn_whoami", {}, auth("alice"))).json()) as CallBody;
    expect(body.isError).toBeFalsy();
    expect(up.calls.at(-1)?.sub).toBe(subs.alice);
    expect(decodeJwt(up.calls.at(-1)?.token ?? "").azp).not.toBe(UPSTREAM_REALM.client.clientId);
    // Replica B, which registered no client of its own yet, refreshes the token A's client got
    // (the realm's access tokens live 15 s, refreshed 10 s before they expire) as A's client.
    const before = await stored("alice", "dyn");
    const wait = (before?.expiresAt ?? 0) - 10_000 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait + 500));
    const onB = (await (await executeTool(b.url, "dyn_whoami", {}, auth("alice"))).json()) as CallBody;
    expect(onB.output).toContain(`you are ${subs.alice}`);
    const after = await stored("alice", "dyn");
    expect(after?.accessToken).not.toBe(before?.accessToken);
    expect(after?.clientId).toBe(before?.clientId);
    expect(decodeJwt(after?.accessToken ?? "").azp).toBe(before?.clientId);
  }, 60_000);

  it("a JWT caller signs in on the login page with its access token; an API key cannot complete its link", async () => {
    const jwt = (await userToken({ scope: "openid tools:call" })).access_token;
    const bearer = { authorization: `Bearer ${jwt}` };
    const first = (await (await executeTool(s.url, TOOL, {}, bearer)).json()) as CallBody;
    const link = first.metadata?.pending?.data?.url ?? "";
    expect(first.metadata?.pending?.kind).toBe("login");
    // The same person's API key is another caller: refused, nothing stored.
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(link);
    await page.fill("#credential", KEYS.alice);
    await page.click("#continue");
    expect(await page.textContent("#outcome")).toMatch(/another caller/);
    await page.goto(link);
    await page.fill("#credential", jwt);
    await page.click("#continue");
    await page.waitForSelector("#kc-login");
    await page.fill("#username", UPSTREAM_REALM.bob.username);
    await page.fill("#password", UPSTREAM_REALM.bob.password);
    await Promise.all([page.waitForURL(/\/oauth\/callback/), page.click("#kc-login")]);
    expect(await page.textContent("#outcome")).toMatch(/Connected/);
    await ctx.close();
    const body = (await (await executeTool(s.url, TOOL, {}, bearer)).json()) as CallBody;
    expect(body.isError).toBeFalsy();
    expect(up.calls.at(-1)?.sub).toBe(subs.bob);
    expect(s.logText()).not.toContain(jwt);
  }, 60_000);

  it("a short-lived access token is refreshed by the next call without a login", async () => {
    const before = await stored("alice");
    const wait = (before?.expiresAt ?? 0) - 10_000 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait + 500));
    expect((await call("alice")).isError).toBeFalsy();
    const after = await stored("alice");
    expect(after?.accessToken).not.toBe(before?.accessToken);
    expect(up.calls.at(-1)?.token).toBe(after?.accessToken);
    expect(up.calls.at(-1)?.sub).toBe(subs.alice);
  }, 30_000);

  it("a forwarded link completed by the other user stores nothing (403), in the gateway's sign-in or at the callback", async () => {
    expect((await fetch(`${s.url}/me/credentials/up`, { method: "DELETE", headers: auth("bob") })).status).toBe(204);
    const link = await loginLink("bob");
    // Alice opens bob's link: her key is not bob's.
    const aliceCtx = await browser.newContext();
    const refused = await signIn(aliceCtx, link, "alice");
    expect(await refused.textContent("#outcome")).toMatch(/another caller/);
    // Bob signs in, but the authorization server's page is finished in alice's browser.
    const bobCtx = await browser.newContext();
    const bobPage = await signIn(bobCtx, link, "bob");
    await bobPage.waitForSelector("#kc-login");
    const kcLogin = bobPage.url();
    const page = await aliceCtx.newPage();
    await page.goto(kcLogin);
    await page.fill("#username", UPSTREAM_REALM.alice.username);
    await page.fill("#password", UPSTREAM_REALM.alice.password);
    const [callback] = await Promise.all([page.waitForResponse(/\/oauth\/callback/), page.click("#kc-login")]);
    expect(callback.status()).toBe(403);
    expect(await page.textContent("#outcome")).toMatch(/did not start this login/);
    await aliceCtx.close();
    await bobCtx.close();
    expect(await stored("bob")).toBeUndefined();
    expect((await call("bob")).metadata?.pending?.kind).toBe("login");
  }, 60_000);

  it("a replayed or tampered state is refused", async () => {
    const ctx = await browser.newContext();
    const page = await signIn(ctx, await loginLink("bob"), "bob");
    await page.waitForSelector("#kc-login");
    const cookie = (await ctx.cookies()).find((c) => c.name === "toolnexus_oauth");
    await page.fill("#username", UPSTREAM_REALM.bob.username);
    await page.fill("#password", UPSTREAM_REALM.bob.password);
    const [callback] = await Promise.all([page.waitForResponse(/\/oauth\/callback/), page.click("#kc-login")]);
    expect(callback.status()).toBe(200);
    await ctx.close();
    const headers = { cookie: `toolnexus_oauth=${cookie?.value}` };
    const replay = await fetch(callback.url(), { headers });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toMatch(/already completed/);
    const u = new URL(callback.url());
    const state = u.searchParams.get("state") ?? "";
    u.searchParams.set("state", `${state.slice(0, -4)}AAAA`);
    expect((await fetch(u, { headers })).status).toBe(400);
  }, 60_000);

  it("DELETE revokes upstream and the next call asks for a login; a revoked refresh token leads to a new login, not an error", async () => {
    const bob = await stored("bob");
    expect(bob?.refreshToken).toBeTruthy();
    expect((await fetch(`${s.url}/me/credentials/up`, { method: "DELETE", headers: auth("bob") })).status).toBe(204);
    expect(await refreshStatus(bob?.refreshToken ?? "")).toBe(400);
    expect((await call("bob")).metadata?.pending?.kind).toBe("login");

    const alice = await stored("alice");
    const revoke = await fetch(`${issuer}/protocol/openid-connect/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: alice?.refreshToken ?? "",
        token_type_hint: "refresh_token",
        client_id: UPSTREAM_REALM.client.clientId,
        client_secret: UPSTREAM_REALM.client.clientSecret,
      }),
    });
    expect(revoke.status).toBe(200);
    const wait = (alice?.expiresAt ?? 0) - 10_000 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait + 500));
    expect((await call("alice")).metadata?.pending?.kind).toBe("login");
    expect((await call("alice")).metadata?.pending?.kind).toBe("login");
    expect(await stored("alice")).toBeUndefined();
  }, 40_000);

  it("a token the upstream refuses (401) is forgotten and the caller is asked to log in again; the server is not reconnected", async () => {
    const jwt = (await userToken({ scope: "openid tools:call" })).access_token;
    const bearer = { authorization: `Bearer ${jwt}` };
    expect(((await (await executeTool(s.url, TOOL, {}, bearer)).json()) as CallBody).isError).toBeFalsy();
    up.revoked.add(subs.bob ?? "");
    const refused = (await (await executeTool(s.url, TOOL, {}, bearer)).json()) as CallBody;
    expect(refused.metadata?.pending?.kind).toBe("login");
    const list = (await (await fetch(`${s.url}/me/credentials`, { headers: bearer })).json()) as {
      credentials: { source: string; status: string }[];
    };
    expect(list.credentials.find((c) => c.source === "up")?.status).toBe("not-connected");
    expect(s.logText()).not.toMatch(/reconnect/i);
  }, 30_000);
});
