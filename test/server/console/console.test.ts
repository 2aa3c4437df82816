import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSealer } from "../../../src/core/seal.js";
import { MemoryExecutionStore } from "../../../src/server/executions/memory/store.js";
import { SESSION_COOKIE, SESSION_PURPOSE } from "../../../src/server/console/session.js";
import { acceptedExecution, pollUntil, submit } from "../../helpers/executions.js";
import { jwtConfig, startIdp, type TestIdp, type TestKey } from "../../helpers/jwks.js";
import { startRedis } from "../../helpers/redis.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { testTools } from "../../helpers/tools.js";

// The operator console's sign-in, session and read APIs, without a browser (test/e2e/console.test.ts has the browser).
const OPS = "console-ops-key-0123456789abcdef";
const TEAM = "console-team-key-0123456789abcdef";
const SECRET = "console-test-state-secret-0123456789abcdef";
const team = { authorization: `Bearer ${TEAM}` };
let s: TestServer;
let idp: TestIdp;
let key: TestKey;
let file: string;
let origin: string;

const config = (keys: unknown[]) => ({
  server: { stateSecret: SECRET },
  audit: { sink: "stdout", arguments: "full" },
  auth: {
    apiKeys: keys,
    jwt: jwtConfig(idp),
    policies: [
      { id: "ops", groups: ["ops"], tools: ["*"], operator: true },
      { id: "eng", groups: ["eng"], tools: ["*"] },
    ],
  },
});
const KEYS = [
  { id: "ops", key: OPS, operator: true },
  { id: "team", key: TEAM },
];

beforeAll(async () => {
  idp = await startIdp();
  key = await idp.key("k1");
  idp.publish([key]);
  file = path.join(await mkdtemp(path.join(os.tmpdir(), "toolnexus-console-")), "config.json");
  await writeFile(file, JSON.stringify(config(KEYS)));
  s = await startServer({ config: file, tools: testTools(), auditDestination: { write: () => true } });
  origin = s.url;
});
afterAll(async () => {
  await s?.close();
  await idp?.close();
});

/** Signs in with `credential` from the console's own origin; the response. */
function signIn(credential: string, from = origin): Promise<Response> {
  return fetch(`${s.url}/admin/session`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: from },
    body: JSON.stringify({ credential }),
  });
}

/** The session cookie (name=value) a sign-in set, and the CSRF token of the console page it opens. */
async function session(credential = OPS): Promise<{ cookie: string; csrf: string }> {
  const res = await signIn(credential);
  expect(res.status).toBe(200);
  const set = res.headers.get("set-cookie") ?? "";
  const cookie = set.split(";")[0] ?? "";
  const page = await (await fetch(`${s.url}/admin`, { headers: { cookie } })).text();
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(page)?.[1] ?? "";
  expect(csrf).not.toBe("");
  return { cookie, csrf };
}

async function problemOf(res: Response): Promise<{ status: number; code: string; type: string | null }> {
  return { status: res.status, code: ((await res.json()) as { code: string }).code, type: res.headers.get("content-type") };
}

describe("console sign-in", () => {
  it("turns an operator key into an HttpOnly, SameSite=Strict sealed cookie that holds no key in clear", async () => {
    const res = await signIn(OPS);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ caller: "ops" });
    const set = res.headers.get("set-cookie") ?? "";
    expect(set).toMatch(new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]+; Path=/; Max-Age=28800; HttpOnly; SameSite=Strict$`));
    expect(set).not.toContain(OPS);
    // Plain http here: no Secure flag (a browser would drop the cookie); https gets it.
    expect(set).not.toContain("Secure");
  });

  it("refuses a non-operator key and a non-operator JWT (403), a wrong key (401), a sign-in from another origin (403)", async () => {
    expect(await problemOf(await signIn(TEAM))).toMatchObject({ status: 403, code: "FORBIDDEN" });
    const eng = await idp.sign({ sub: "erin", groups: ["eng"] }, key);
    expect(await problemOf(await signIn(eng))).toMatchObject({ status: 403, code: "FORBIDDEN" });
    expect(await problemOf(await signIn("not-a-key-0123456789abcdef"))).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    const cross = await signIn(OPS, "https://evil.example");
    expect(cross.status).toBe(403);
    expect(cross.headers.get("set-cookie")).toBeNull();
  });

  it("signs in an operator JWT; its session reads the console's APIs", async () => {
    const ops = await idp.sign({ sub: "oscar", groups: ["ops"] }, key);
    const { cookie } = await session(ops);
    const res = await fetch(`${s.url}/admin/metrics`, { headers: { cookie } });
    expect(res.status).toBe(200);
  });

  it("serves the page with a strict CSP and its script as a route of its own (no inline script)", async () => {
    const { cookie } = await session();
    const res = await fetch(`${s.url}/admin`, { headers: { cookie } });
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    const html = await res.text();
    expect(html).toContain('<script src="/admin/console.js" defer></script>');
    expect(html.match(/<script/g)).toHaveLength(1);
    const js = await fetch(`${s.url}/admin/console.js`);
    expect(js.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(await js.text()).not.toContain("innerHTML");
  });
});

describe("who may use the console", () => {
  const apis = ["/admin/metrics", "/admin/executions", "/admin/audit", "/admin/audit/events", "/status", "/admin/pins"];

  it("gives a non-operator 403 on the page and on every console API, with nothing of the service", async () => {
    const page = await fetch(`${s.url}/admin`, { headers: team });
    expect(page.status).toBe(403);
    const html = await page.text();
    expect(html).toContain("operator callers only");
    expect(html).not.toContain("csrf-token");
    for (const p of apis)
      expect(await problemOf(await fetch(`${s.url}${p}`, { headers: team })), p).toMatchObject({ status: 403, code: "FORBIDDEN" });
    const cancel = await fetch(`${s.url}/admin/executions/${"0".repeat(32)}/cancel`, { method: "POST", headers: team });
    expect(cancel.status).toBe(403);
    const eng = await idp.sign({ sub: "erin", groups: ["eng"] }, key);
    expect((await fetch(`${s.url}/admin/executions`, { headers: { authorization: `Bearer ${eng}` } })).status).toBe(403);
  });

  it("shows the sign-in form, without data, to a browser with no session; the APIs answer 401", async () => {
    const page = await fetch(`${s.url}/admin`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('id="signin"');
    expect(html).not.toContain('id="console"');
    for (const p of apis) expect((await fetch(`${s.url}${p}`)).status, p).toBe(401);
  });

  it("refuses a forged cookie (401 on the APIs, the sign-in form again on the page)", async () => {
    const forged = `${SESSION_COOKIE}=${Buffer.from("x".repeat(80)).toString("base64url")}`;
    expect(await problemOf(await fetch(`${s.url}/admin/executions`, { headers: { cookie: forged } }))).toMatchObject({
      status: 401,
      code: "UNAUTHORIZED",
    });
    // Sealed by another gateway (another secret): as forged.
    const foreign = createSealer("another-secret-0123456789abcdef").seal(SESSION_PURPOSE, { c: OPS, x: "t" }, 60_000);
    expect((await fetch(`${s.url}/admin/metrics`, { headers: { cookie: `${SESSION_COOKIE}=${foreign}` } })).status).toBe(401);
    // Sealed by this gateway for another purpose: as forged.
    const other = createSealer(SECRET).seal("input request", { c: OPS, x: "t" }, 60_000);
    expect((await fetch(`${s.url}/admin/metrics`, { headers: { cookie: `${SESSION_COOKIE}=${other}` } })).status).toBe(401);
    const page = await fetch(`${s.url}/admin`, { headers: { cookie: forged } });
    expect(await page.text()).toContain("Your session ended");
    expect(page.headers.get("set-cookie")).toMatch(/Max-Age=0/);
  });

  it("refuses an expired session", async () => {
    const past = createSealer(SECRET, () => Date.now() - 9 * 3600_000).seal(SESSION_PURPOSE, { c: OPS, x: "t" }, 8 * 3600_000);
    expect(await problemOf(await fetch(`${s.url}/admin/metrics`, { headers: { cookie: `${SESSION_COOKIE}=${past}` } }))).toMatchObject({
      status: 401,
      code: "UNAUTHORIZED",
    });
    const fresh = createSealer(SECRET).seal(SESSION_PURPOSE, { c: OPS, x: "t" }, 60_000);
    expect((await fetch(`${s.url}/admin/metrics`, { headers: { cookie: `${SESSION_COOKIE}=${fresh}` } })).status).toBe(200);
  });
});

describe("console actions", () => {
  it("cancels another caller's execution with the session's CSRF token from the same origin, and refuses it otherwise", async () => {
    const { cookie, csrf } = await session();
    const x = await acceptedExecution(await submit(s.url, "slow", { arguments: { ms: 30_000 } }, team));
    await pollUntil(s.url, x.id, ["running"], { headers: team });
    const listed = (await (await fetch(`${s.url}/admin/executions`, { headers: { cookie } })).json()) as {
      executions: { owner: string; execution: { id: string; tool: string; status: string } }[];
    };
    expect(listed.executions).toContainEqual({ owner: "apiKey:team", execution: expect.objectContaining({ id: x.id, tool: "slow" }) });

    const cancel = (headers: Record<string, string>) =>
      fetch(`${s.url}/admin/executions/${x.id}/cancel`, { method: "POST", headers: { cookie, ...headers } });
    // No CSRF token; a wrong one; the right one from another origin; no Origin at all.
    for (const h of <Record<string, string>[]>[
      { origin },
      { origin, "x-csrf-token": "wrong" },
      { origin: "https://evil.example", "x-csrf-token": csrf },
      { "x-csrf-token": csrf },
    ]) {
      const res = await cancel(h);
      expect(res.status, JSON.stringify(h)).toBe(403);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    }
    expect((await pollUntil(s.url, x.id, ["running"], { headers: team })).status).toBe("running");

    const res = await cancel({ origin, "x-csrf-token": csrf });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe("cancelled");
    const unknown = await fetch(`${s.url}/admin/executions/${"0".repeat(32)}/cancel`, {
      method: "POST",
      headers: { cookie, origin, "x-csrf-token": csrf },
    });
    expect(await problemOf(unknown)).toMatchObject({ status: 404, code: "EXECUTION_NOT_FOUND" });
  });

  it("keeps the audit tail of recent calls, and counts calls and errors per tool", async () => {
    const { cookie } = await session();
    await fetch(`${s.url}/tools/divide/execute`, {
      method: "POST",
      headers: { ...team, "content-type": "application/json" },
      body: JSON.stringify({ arguments: { a: 1, b: 0 } }),
    });
    const tail = (await (await fetch(`${s.url}/admin/audit`, { headers: { cookie } })).json()) as {
      enabled: boolean;
      lines: { seq: number; line: Record<string, unknown> }[];
    };
    expect(tail.enabled).toBe(true);
    expect(tail.lines.at(-1)?.line).toMatchObject({ tool: "divide", principal: "team", outcome: "tool_error" });
    const metrics = (await (await fetch(`${s.url}/admin/metrics`, { headers: { cookie } })).json()) as { tools: unknown[] };
    expect(metrics.tools).toContainEqual({ tool: "divide", calls: 1, errors: 1 });
  });

  it("signs a session out when its key is removed from the config (reload)", async () => {
    const { cookie } = await session();
    expect((await fetch(`${s.url}/admin/metrics`, { headers: { cookie } })).status).toBe(200);
    await writeFile(file, JSON.stringify(config([{ id: "ops2", key: "console-ops2-key-0123456789abcdef", operator: true }, KEYS[1]])));
    expect(await s.app.toolnexus.reload()).toBe(true);
    try {
      expect(await problemOf(await fetch(`${s.url}/admin/metrics`, { headers: { cookie } }))).toMatchObject({
        status: 401,
        code: "UNAUTHORIZED",
      });
      expect(await (await fetch(`${s.url}/admin`, { headers: { cookie } })).text()).toContain("Your session ended");
    } finally {
      await writeFile(file, JSON.stringify(config(KEYS)));
      expect(await s.app.toolnexus.reload()).toBe(true);
    }
  });
});

describe("every owner's executions, paged", () => {
  it("walks 10,000 executions of several owners in pages, newest first, each once", async () => {
    const store = new MemoryExecutionStore(
      () =>
        ({
          maxTimeoutMs: 60_000,
          defaultTimeoutMs: 60_000,
          retentionMs: 3_600_000,
          maxActivePerCaller: 20_000,
          maxRetainedPerCaller: 20_000,
        }) as never,
      async () => ({ status: "succeeded", result: { output: "ok", isError: false } }),
    );
    const ids: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const { execution } = await store.submit(
        { owner: `o${i % 7}`, tool: "echo", body: {}, requestId: String(i), timeoutMs: 60_000 },
        String(i),
      );
      ids.push(execution.id);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await store.listAll({ limit: 200, ...(cursor ? { cursor } : {}) });
      expect(page.executions.length).toBeLessThanOrEqual(200);
      seen.push(...page.executions.map((e) => e.execution.id));
      cursor = page.next;
      pages++;
    } while (cursor);
    expect(pages).toBe(50);
    expect(seen).toEqual(ids.reverse());
    expect((await store.listAll({ active: true, limit: 10 })).executions).toEqual([]);
    await store.close();
  });
});

describe("every owner's executions on Redis, paged", () => {
  it("merges the owners' indexes newest first across pages, and keeps only those in flight with state=active", async () => {
    const redis = await startRedis();
    const keys = ["a", "b", "c"].map((id) => ({ id, key: `console-redis-${id}-0123456789abcdef` }));
    const r = await startServer({
      config: { redis: { url: redis.url }, auth: { apiKeys: [...keys, { id: "ops", key: OPS, operator: true }] } },
      tools: testTools(),
    });
    const ops = { authorization: `Bearer ${OPS}` };
    try {
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) {
        const { key: k } = keys[i % 3] ?? { key: "" };
        const x = await acceptedExecution(
          await submit(r.url, "echo", { arguments: { text: String(i) } }, { authorization: `Bearer ${k}` }),
        );
        ids.push(x.id);
        await pollUntil(r.url, x.id, ["succeeded"], { headers: { authorization: `Bearer ${k}` } });
      }
      const seen: { owner: string; id: string }[] = [];
      let cursor: string | undefined;
      do {
        const page = (await (
          await fetch(`${r.url}/admin/executions?state=all&limit=7${cursor ? `&cursor=${cursor}` : ""}`, { headers: ops })
        ).json()) as {
          executions: { owner: string; execution: { id: string } }[];
          next?: string;
        };
        expect(page.executions.length).toBeLessThanOrEqual(7);
        seen.push(...page.executions.map((e) => ({ owner: e.owner, id: e.execution.id })));
        cursor = page.next;
      } while (cursor);
      expect(seen.map((e) => e.id)).toEqual([...ids].reverse());
      expect(seen[0]?.owner).toBe("apiKey:c");

      // In flight: listed as active, and cancelled by an operator on its owner's behalf.
      const a = { authorization: `Bearer ${keys[0]?.key}` };
      const slow = await acceptedExecution(await submit(r.url, "slow", { arguments: { ms: 30_000 } }, a));
      await pollUntil(r.url, slow.id, ["running"], { headers: a });
      const active = (await (await fetch(`${r.url}/admin/executions`, { headers: ops })).json()) as {
        executions: { owner: string; execution: { id: string } }[];
      };
      expect(active.executions.map((e) => [e.owner, e.execution.id])).toEqual([["apiKey:a", slow.id]]);
      const cancelled = await fetch(`${r.url}/admin/executions/${slow.id}/cancel`, { method: "POST", headers: ops });
      expect(((await cancelled.json()) as { status: string }).status).toBe("cancelled");
    } finally {
      await r.close();
      await redis.stop();
    }
  }, 60_000);
});
