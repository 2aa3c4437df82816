import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createSealer, SEAL_PURPOSES } from "../../../src/core/seal.js";
import { executeTool } from "../../helpers/execute.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { startUpstream, type Upstream } from "../../sources/http/upstream.js";

// user-secret end to end: a secret each caller sets once, kept encrypted in the vault (a file,
// or the Redis several replicas share), sent upstream as configured, never returned.
const STATE_SECRET = "s".repeat(40);
const ALICE = { authorization: "Bearer alice-key-0123456789" };
const BOB = { authorization: "Bearer bob-key-0123456789" };
let up: Upstream;
let dir: string;

function config(extra: Record<string, unknown>) {
  return {
    server: { stateSecret: STATE_SECRET },
    auth: {
      apiKeys: [
        { id: "alice", key: "alice-key-0123456789" },
        { id: "bob", key: "bob-key-0123456789" },
      ],
    },
    http: [
      {
        name: "saas",
        url: `${up.url}/echo/saas`,
        upstreamAuth: { mode: "user-secret" as const, header: "X-Api-Key", format: "token {secret}" },
      },
      { name: "saas_default", url: `${up.url}/echo/default`, upstreamAuth: { mode: "user-secret" as const, source: "other" } },
      { name: "refusing", url: `${up.url}/status/401`, upstreamAuth: { mode: "user-secret" as const, source: "refusing" } },
    ],
    ...extra,
  };
}

function put(s: TestServer, source: string, body: unknown, who = ALICE) {
  return fetch(`${s.url}/me/credentials/${source}`, {
    method: "PUT",
    headers: { "content-type": "application/json", ...who },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function sentKey(s: TestServer, who: Record<string, string>, tool = "saas") {
  const before = up.seen.length;
  const res = await executeTool(s.url, tool, {}, who);
  const body = (await res.json()) as { isError?: boolean; metadata?: { pending?: { kind: string; data?: Record<string, unknown> } } };
  return { status: res.status, body, seen: up.seen.length > before ? up.seen.at(-1)?.headers : undefined };
}

beforeAll(async () => {
  up = await startUpstream();
  dir = await mkdtemp(path.join(os.tmpdir(), "toolnexus-vault-"));
});
afterAll(async () => {
  await up?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("user-secret with a vault file", () => {
  let s: TestServer;
  const file = () => path.join(dir, "vault.json");
  const secret = `sk-${randomBytes(12).toString("hex")}`;
  beforeAll(async () => {
    s = await startServer({ config: config({ vault: { file: file() } }) });
  });
  afterAll(async () => s?.close());

  it("a call without a secret reaches no upstream and answers the pending that says where to set it", async () => {
    const { status, body, seen } = await sentKey(s, ALICE);
    expect(status).toBe(200);
    expect(seen).toBeUndefined();
    expect(body.isError).toBe(true);
    expect(body.metadata?.pending?.kind).toBe("credential");
    expect(body.metadata?.pending?.data).toMatchObject({ source: "saas", method: "PUT", path: "/me/credentials/saas" });
  });

  it("set: sent as configured for its caller only; listed without the secret; never in the file or the logs", async () => {
    expect((await put(s, "saas", { secret })).status).toBe(204);
    const alice = await sentKey(s, ALICE);
    expect(alice.body.isError).toBeFalsy();
    expect(alice.seen?.["x-api-key"]).toBe(`token ${secret}`);
    // Bob has not set his: he gets the pending, and alice's secret never goes out for him.
    const bob = await sentKey(s, BOB);
    expect(bob.seen).toBeUndefined();
    expect(bob.body.metadata?.pending?.kind).toBe("credential");
    const list = await fetch(`${s.url}/me/credentials`, { headers: ALICE });
    const text = await list.text();
    expect(list.status).toBe(200);
    expect(text).not.toContain(secret);
    expect(JSON.parse(text)).toEqual({
      credentials: [
        { source: "other", mode: "user-secret", status: "not-connected" },
        { source: "refusing", mode: "user-secret", status: "not-connected" },
        { source: "saas", mode: "user-secret", status: "connected", connectedAt: expect.any(String) },
      ],
    });
    const stored = await readFile(file(), "utf8");
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain("alice");
    expect(s.logText()).not.toContain(secret);
  });

  it("the default header is Authorization: Bearer; a source name shared by configuration", async () => {
    const other = `o-${randomBytes(8).toString("hex")}`;
    expect((await put(s, "other", { secret: other })).status).toBe(204);
    expect((await sentKey(s, ALICE, "saas_default")).seen?.authorization).toBe(`Bearer ${other}`);
  });

  it("bad input stores nothing: a newline, 1 MB, an unknown source, an extra field", async () => {
    const newline = await put(s, "saas", { secret: "abc\r\nX-Evil: 1" });
    expect(newline.status).toBe(400);
    expect(((await newline.json()) as { code: string }).code).toBe("INVALID_REQUEST");
    const huge = await put(s, "saas", { secret: "x".repeat(1024 * 1024) });
    expect([400, 413]).toContain(huge.status);
    expect((await put(s, "nowhere", { secret: "abc" })).status).toBe(404);
    expect((await put(s, "saas", { secret: "abc", more: 1 })).status).toBe(400);
    expect((await sentKey(s, ALICE)).seen?.["x-api-key"]).toBe(`token ${secret}`);
  });

  it("replaced, then deleted: the next call asks again; a second delete is 404", async () => {
    const next = `sk-${randomBytes(12).toString("hex")}`;
    expect((await put(s, "saas", { secret: next })).status).toBe(204);
    expect((await sentKey(s, ALICE)).seen?.["x-api-key"]).toBe(`token ${next}`);
    expect((await fetch(`${s.url}/me/credentials/saas`, { method: "DELETE", headers: ALICE })).status).toBe(204);
    const after = await sentKey(s, ALICE);
    expect(after.seen).toBeUndefined();
    expect(after.body.metadata?.pending?.kind).toBe("credential");
    expect((await fetch(`${s.url}/me/credentials/saas`, { method: "DELETE", headers: ALICE })).status).toBe(404);
    expect(s.logText()).not.toContain(next);
  });

  it("an expired, foreign or altered login state is refused with a page that says so, and sets nothing", async () => {
    const past = createSealer(STATE_SECRET, () => Date.now() - 11 * 60 * 1000);
    const expiredLink = past.seal(SEAL_PURPOSES.loginLink, { c: "apiKey:alice", s: "saas" }, 10 * 60 * 1000);
    const start = await fetch(`${s.url}/oauth/start?state=${expiredLink}`);
    expect(start.status).toBe(400);
    expect(start.headers.get("content-type")).toMatch(/text\/html/);
    expect(start.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await start.text()).toMatch(/expired/);
    const expiredState = past.seal(SEAL_PURPOSES.oauthState, { c: "apiKey:alice", s: "saas", v: "v", n: "n" }, 10 * 60 * 1000);
    const callback = await fetch(`${s.url}/oauth/callback?code=c&state=${expiredState}`);
    expect(callback.status).toBe(400);
    expect(callback.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    // Sealed by another gateway, or sealed here for another purpose: the same refusal.
    const foreign = createSealer("f".repeat(40)).seal(SEAL_PURPOSES.loginLink, { c: "apiKey:alice", s: "saas" }, 60_000);
    expect((await fetch(`${s.url}/oauth/start?state=${foreign}`)).status).toBe(400);
    const otherUse = createSealer(STATE_SECRET).seal(SEAL_PURPOSES.inputRequest, { c: "apiKey:alice", s: "saas" }, 60_000);
    expect((await fetch(`${s.url}/oauth/start?state=${otherUse}`)).status).toBe(400);
    // A live link for a user-secret connection: there is no login to start.
    const live = createSealer(STATE_SECRET).seal(SEAL_PURPOSES.loginLink, { c: "apiKey:alice", s: "saas" }, 60_000);
    expect((await fetch(`${s.url}/oauth/start?state=${live}`)).status).toBe(404);
    expect((await fetch(`${s.url}/oauth/start?state=${live}&x=<script>`)).status).toBe(404);
  });

  it("a secret the upstream refuses (401) is forgotten and the caller is asked for a new one", async () => {
    expect((await put(s, "refusing", { secret: "wrong-one" })).status).toBe(204);
    const res = await executeTool(s.url, "refusing", {}, ALICE);
    const body = (await res.json()) as { metadata?: { pending?: { kind: string } } };
    expect(body.metadata?.pending?.kind).toBe("credential");
    const list = (await (await fetch(`${s.url}/me/credentials`, { headers: ALICE })).json()) as {
      credentials: { source: string; status: string }[];
    };
    expect(list.credentials.find((c) => c.source === "refusing")?.status).toBe("not-connected");
  });

  it("survives a restart with the same stateSecret; another secret cannot read it", async () => {
    const kept = `k-${randomBytes(8).toString("hex")}`;
    expect((await put(s, "saas", { secret: kept })).status).toBe(204);
    const again = await startServer({ config: config({ vault: { file: file() } }) });
    try {
      expect((await sentKey(again, ALICE)).seen?.["x-api-key"]).toBe(`token ${kept}`);
    } finally {
      await again.close();
    }
    const rotated = await startServer({ config: { ...config({ vault: { file: file() } }), server: { stateSecret: "r".repeat(40) } } });
    try {
      expect((await sentKey(rotated, ALICE)).body.metadata?.pending?.kind).toBe("credential");
      const list = (await (await fetch(`${rotated.url}/me/credentials`, { headers: ALICE })).json()) as {
        credentials: { status: string }[];
      };
      expect(list.credentials.map((c) => c.status)).toContain("unreadable");
    } finally {
      await rotated.close();
    }
  });
});

describe("user-secret on two replicas sharing Redis", () => {
  let a: TestServer;
  let b: TestServer;
  let redis: Redis;
  const url = `${inject("redisUrl")}/6`;
  beforeAll(async () => {
    a = await startServer({ config: config({ redis: { url } }) });
    b = await startServer({ config: config({ redis: { url } }) });
    redis = new Redis(url);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    redis?.disconnect();
  });

  it("a secret set through replica A is used by a call on replica B; no key or value holds it in the clear", async () => {
    const secret = `sk-${randomBytes(12).toString("hex")}`;
    expect((await put(a, "saas", { secret }, BOB)).status).toBe(204);
    expect((await sentKey(b, BOB)).seen?.["x-api-key"]).toBe(`token ${secret}`);
    const keys = await redis.keys("*");
    expect(keys.some((k) => k.startsWith("toolnexus:vault:"))).toBe(true);
    let dump = keys.join("\n");
    for (const k of keys) {
      const type = await redis.type(k);
      if (type === "hash") dump += JSON.stringify(await redis.hgetall(k));
      else if (type === "string") dump += (await redis.get(k)) ?? "";
    }
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain("bob");
  });
});
