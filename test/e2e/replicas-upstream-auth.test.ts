import { randomInt } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { acceptedExecution, pollUntil, submit } from "../helpers/executions.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { eventually } from "../helpers/wait.js";
import { CLIENT_ID, CLIENT_SECRET, startTokenServer, type TokenServer, jwtAuthOf } from "../helpers/token-server.js";
import { startUpstream, type Upstream } from "../sources/http/upstream.js";

// Database 9 of the run's redis-server: BullMQ's queue name is fixed, so replicas of other files must not share it.
const url = `${inject("redisUrl")}/9`;
const STATE_SECRET = "replicas-share-this-state-secret-0123456789";
let as: TokenServer;
let up: Upstream;
let a: TestServer;
let b: TestServer;
let redis: Redis;

/** One replica: the same config but for a header naming it, so the upstream tells who ran a job. */
function replica(name: string, stateSecret = STATE_SECRET): Promise<TestServer> {
  return startServer({
    config: {
      server: { stateSecret },
      redis: { url },
      auth: {
        apiKeys: [],
        jwt: jwtAuthOf(as),
        policies: [{ id: "all", groups: ["eng"], tools: ["*"] }],
      },
      http: [
        {
          name: "whoami",
          url: `${up.url}/echo/whoami`,
          headers: { "x-replica": name },
          upstreamAuth: { mode: "exchange", audience: "http-upstream", clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, timeoutMs: 1500 },
        },
      ],
    },
  });
}

beforeAll(async () => {
  as = await startTokenServer();
  up = await startUpstream();
  redis = new Redis(url);
  await redis.flushdb();
  a = await replica("a");
  b = await replica("b");
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  redis?.disconnect();
  await up?.close();
  await as?.close();
});

/** Every key and value of the database, as one text. */
async function redisDump(): Promise<string> {
  const parts: string[] = [];
  for (const key of await redis.keys("*")) {
    const type = await redis.type(key);
    parts.push(key);
    if (type === "string") parts.push((await redis.get(key)) ?? "");
    else if (type === "hash") parts.push(JSON.stringify(await redis.hgetall(key)));
    else if (type === "list") parts.push(...(await redis.lrange(key, 0, -1)));
    else if (type === "set") parts.push(...(await redis.smembers(key)));
    else if (type === "zset") parts.push(...(await redis.zrange(key, "0", "-1")));
    else if (type === "stream") parts.push(JSON.stringify(await redis.xrange(key, "-", "+")));
  }
  return parts.join("\n");
}

describe("executions that exchange the caller's token, on two replicas sharing Redis", () => {
  it("a job submitted on one replica and run on the other exchanges the caller's token, which Redis holds only sealed; no token is ever in Redis in the clear", async () => {
    const caller = await as.sign({ sub: "dana", groups: ["eng"] });
    const auth = { authorization: `Bearer ${caller}` };
    const replicas = { a, b };
    let crossed = false;
    // BullMQ promises no order in which idle workers take jobs, so the replica that submits is
    // drawn at random: whatever that order, each job crosses over with even odds.
    for (let i = 0; i < 24 && !crossed; i++) {
      const on = randomInt(2) === 0 ? "a" : "b";
      const e = await acceptedExecution(await submit(replicas[on].url, "whoami", {}, auth));
      // The job is in Redis now (queued or running): its caller token is ciphertext.
      expect(await redisDump()).not.toContain(caller);
      const done = await pollUntil(replicas[on === "a" ? "b" : "a"].url, e.id, ["succeeded", "failed"], { headers: auth });
      expect(done.status).toBe("succeeded");
      const seen = up.seen.at(-1);
      crossed = String(seen?.headers["x-replica"]) !== on;
      const token = String(seen?.headers.authorization).slice(7);
      expect(await as.verify(token)).toMatchObject({ sub: "dana", aud: "http-upstream" });
      expect(await redisDump()).not.toContain(token);
    }
    expect(crossed).toBe(true);
    expect(as.requests.every((r) => r.form.subject_token === caller)).toBe(true);
  });

  it("while a job waits on its exchange, Redis holds its caller token sealed, never in the clear", async () => {
    const caller = await as.sign({ sub: "fay", groups: ["eng"] });
    const auth = { authorization: `Bearer ${caller}` };
    as.mode = "hang";
    try {
      const before = as.requests.length;
      const e = await acceptedExecution(await submit(a.url, "whoami", {}, auth));
      // The exchange is in flight (the token endpoint got it and does not answer): the job and its data are in Redis.
      await eventually(() => as.requests.length > before, { timeoutMs: 5000 });
      const dump = await redisDump();
      expect(dump).toContain("callerToken");
      expect(dump).not.toContain(caller);
      expect(dump).not.toContain(caller.split(".")[2]);
      const done = await pollUntil(b.url, e.id, ["failed", "succeeded", "cancelled"], { headers: auth });
      expect(done).toMatchObject({ status: "failed", error: { code: "UPSTREAM_AUTH_FAILED" } });
    } finally {
      as.mode = "ok";
    }
  });

  it("a replica with another state secret cannot open the sealed token: its runs fail UPSTREAM_AUTH_FAILED and reach no upstream", async () => {
    const c = await replica("c", "another-secret-entirely-0123456789abcdef");
    try {
      const caller = await as.sign({ sub: "erin", groups: ["eng"] });
      const auth = { authorization: `Bearer ${caller}` };
      const seenBefore = up.seen.length;
      const outcomes = new Set<string>();
      // Submitted on A: whichever replica runs it, C's (wrong key) runs must fail and A's/B's succeed.
      for (let i = 0; i < 12 && !outcomes.has("failed"); i++) {
        const e = await acceptedExecution(await submit(a.url, "whoami", {}, auth));
        const done = await pollUntil(a.url, e.id, ["succeeded", "failed"], { headers: auth });
        outcomes.add(done.status);
        if (done.status === "failed") expect(done.error).toMatchObject({ code: "UPSTREAM_AUTH_FAILED" });
      }
      expect(outcomes.has("failed")).toBe(true);
      expect(up.seen.slice(seenBefore).every((r) => r.headers["x-replica"] !== "c")).toBe(true);
    } finally {
      await c.close();
    }
  });
});
