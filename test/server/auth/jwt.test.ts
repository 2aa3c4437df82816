import { CompactSign, SignJWT, base64url } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { executeTool } from "../../helpers/execute.js";
import { jwtConfig, startIdp, type TestIdp, type TestKey } from "../../helpers/jwks.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { tool } from "../../helpers/static-source.js";

const API_KEY = "gateway-key-0123456789abcdef";
let idp: TestIdp;
let k1: TestKey;
let s: TestServer;
const tokens: string[] = [];

async function serve(extra: Record<string, unknown> = {}): Promise<TestServer> {
  return startServer({
    config: { auth: { apiKeys: [{ id: "ci", key: API_KEY }], jwt: jwtConfig(idp, extra), policies: [{ id: "everyone", tools: ["*"] }] } },
    tools: [tool("echo", "native")],
  });
}

const get = (token: string, on: TestServer = s) => fetch(`${on.url}/tools`, { headers: { authorization: `Bearer ${token}` } });
const sign = async (...args: Parameters<TestIdp["sign"]>) => {
  const t = await idp.sign(...args);
  tokens.push(t);
  return t;
};

async function expectInvalid(res: Response, detail: RegExp): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  const body = (await res.json()) as { code: string; detail: string };
  expect(body.code).toBe("UNAUTHORIZED");
  expect(body.detail).toMatch(detail);
}

beforeAll(async () => {
  idp = await startIdp();
  k1 = await idp.key("k1");
  idp.publish([k1]);
  s = await serve();
});
afterAll(async () => {
  await s.close();
  // No token, whole or in part (its signature), ever reaches a log line.
  for (const t of tokens) {
    expect(s.logText()).not.toContain(t);
    expect(s.logText()).not.toContain(t.split(".")[2]);
  }
  await idp.close();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("JWT callers", () => {
  it("a valid token lists and runs tools; its subject is the caller in the log line", async () => {
    const token = await sign({ sub: "alice" }, k1);
    expect((await get(token)).status).toBe(200);
    const res = await executeTool(s.url, "echo", {}, { authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    expect(s.logs.find((l) => l.msg === "tool call")).toMatchObject({ caller: "alice", auth: "jwt", policy: "everyone" });
  });

  it("API keys keep working beside JWT", async () => {
    expect((await get(API_KEY)).status).toBe(200);
    expect((await fetch(`${s.url}/tools`, { headers: { "x-api-key": API_KEY } })).status).toBe(200);
  });

  it("refuses expiry, wrong issuer, wrong audience, a missing subject", async () => {
    await expectInvalid(await get(await sign({ sub: "a" }, k1, { expiresIn: Math.floor(Date.now() / 1000) - 60 })), /expired/);
    await expectInvalid(await get(await sign({ sub: "a" }, k1, { issuer: "https://evil.example/" })), /"iss"/);
    await expectInvalid(await get(await sign({ sub: "a" }, k1, { audience: "someone-else" })), /"aud"/);
    await expectInvalid(await get(await sign({}, k1)), /subject/);
  });

  it("refuses a bad signature, alg none and HS256 signed with the public key", async () => {
    const forged = await sign({ sub: "a" }, { ...(await idp.key("k1")), kid: "k1" });
    await expectInvalid(await get(forged), /signature/);
    const header = base64url.encode(JSON.stringify({ alg: "none", kid: "k1" }));
    const payload = base64url.encode(
      JSON.stringify({ sub: "a", iss: idp.issuer, aud: "toolnexus", exp: Math.floor(Date.now() / 1000) + 60 }),
    );
    await expectInvalid(await get(`${header}.${payload}.`), /not a signed JWT/);
    await expectInvalid(await get(`${header}.${payload}.c2ln`), /algorithm/);
    const hmacKey = new TextEncoder().encode(JSON.stringify(k1.jwk));
    const confused = await new SignJWT({ sub: "a" })
      .setProtectedHeader({ alg: "HS256", kid: "k1" })
      .setIssuer(idp.issuer)
      .setAudience("toolnexus")
      .setExpirationTime("1h")
      .sign(hmacKey);
    tokens.push(confused);
    await expectInvalid(await get(confused), /algorithm/);
  });

  it("bad input: oversized, malformed base64, nested JWS, five-part JWE; the service stays up", async () => {
    await expectInvalid(await get(`${"a".repeat(9000)}.b.c`), /longer than/);
    // 100 KB does not even pass Node's header limit.
    const huge = await fetch(`${s.url}/tools`, { headers: { authorization: `Bearer ${"a".repeat(100_000)}` } });
    expect(huge.status).toBe(431);
    await expectInvalid(await get("e30.@@@.c2ln"), /not a signed JWT/);
    await expectInvalid(await get("%%%.%%%.%%%"), /not a signed JWT/);
    await expectInvalid(await get("a.b.c.d.e"), /not a signed JWT/);
    await expectInvalid(await get("eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.bm90IGpzb24.c2ln"), /malformed|signature/);
    const inner = await sign({ sub: "a" }, k1);
    const nested = await new CompactSign(new TextEncoder().encode(inner))
      .setProtectedHeader({ alg: "RS256", kid: "k1", cty: "JWT" })
      .sign(k1.privateKey);
    tokens.push(nested);
    await expectInvalid(await get(nested), /malformed/);
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    expect((await get(await sign({ sub: "a" }, k1))).status).toBe(200);
  });
});

describe("tokens without exp", () => {
  it("are refused by default: they would be valid forever", async () => {
    await expectInvalid(await get(await sign({ sub: "forever" }, k1, { expiresIn: false })), /^The token has no "exp" claim$/);
    // Refused every time, not only before a cache saw it.
    await expectInvalid(await get(await sign({ sub: "forever" }, k1, { expiresIn: false })), /"exp"/);
  });

  it("requireExp: false accepts them; maxTokenAgeSeconds still bounds them by iat", async () => {
    const relaxed = await serve({ requireExp: false, maxTokenAgeSeconds: 600 });
    try {
      const now = Math.floor(Date.now() / 1000);
      expect((await get(await sign({ sub: "svc" }, k1, { expiresIn: false }), relaxed)).status).toBe(200);
      await expectInvalid(await get(await sign({ sub: "svc" }, k1, { expiresIn: false, issuedAt: now - 3600 }), relaxed), /expired/);
      // The age bound applies to tokens with exp too.
      await expectInvalid(await get(await sign({ sub: "svc" }, k1, { issuedAt: now - 3600, expiresIn: now + 3600 }), relaxed), /expired/);
    } finally {
      await relaxed.close();
    }
  });
});

describe("verified-token cache", () => {
  it("a token verified (and cached) is still refused once it expires", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const token = await sign({ sub: "cached" }, k1, { expiresIn: "30s" });
    expect((await get(token)).status).toBe(200);
    expect((await get(token)).status).toBe(200);
    vi.setSystemTime(Date.now() + 31_000);
    await expectInvalid(await get(token), /expired/);
  });
});

describe("JWKS rotation and outages", () => {
  it("a new kid is fetched after the 30 s cooldown; a removed key stops verifying after that refetch", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const k2 = await idp.key("k2");
    idp.publish([k2]);
    const fetches = idp.fetches;
    const t2 = await sign({ sub: "bob" }, k2);
    const t1 = await sign({ sub: "alice" }, k1);
    // The first sight of a kid right after a fetch waits for the cooldown: no refetch storm.
    await expectInvalid(await get(t2), /No key/);
    expect((await get(t1)).status).toBe(200);
    vi.setSystemTime(Date.now() + 31_000);
    expect((await get(t2)).status).toBe(200);
    expect(idp.fetches).toBe(fetches + 1);
    await expectInvalid(await get(t1), /No key/);
    idp.publish([k1]);
  });

  it("cached keys keep verifying while the JWKS is down or slow; 503 only when no key was ever fetched", async () => {
    const own = await serve();
    const empty = await serve();
    try {
      vi.useFakeTimers({ toFake: ["Date"] });
      // A new token each time: a token verified once is cached for a minute and would not ask for keys.
      const fresh = (n: number) => sign({ sub: "alice", n }, k1, { expiresIn: "2h" });
      expect((await get(await fresh(1), own)).status).toBe(200);
      // Past jose's 10 min cache age a refetch is due; the endpoint is slow, then down.
      idp.mode = "slow";
      vi.setSystemTime(Date.now() + 11 * 60_000);
      expect((await get(await fresh(2), own)).status).toBe(200);
      const fetches = idp.fetches;
      // A failed fetch is not retried for 30 s: requests do not each wait out the timeout.
      expect((await get(await fresh(3), own)).status).toBe(200);
      expect(idp.fetches).toBe(fetches);
      idp.mode = "down";
      vi.setSystemTime(Date.now() + 31_000);
      expect((await get(await fresh(4), own)).status).toBe(200);
      expect(idp.fetches).toBe(fetches + 1);
      expect(own.logs.some((l) => l.msg === "JWKS fetch failed" && l.cachedKeys === true)).toBe(true);

      const t1 = await fresh(5);
      const res = await get(t1, empty);
      expect(res.status).toBe(503);
      expect(res.headers.get("www-authenticate")).toBeNull();
      expect(await res.json()).toMatchObject({ code: "AUTH_UNAVAILABLE" });
      expect((await get(API_KEY, empty)).status).toBe(200);
    } finally {
      idp.mode = "up";
      await own.close();
      await empty.close();
    }
  });
});
