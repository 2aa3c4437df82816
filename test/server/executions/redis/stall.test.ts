import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptedExecution, getExecution, pollUntil, submit } from "../../../helpers/executions.js";
import { startRedis, type RedisServer } from "../../../helpers/redis.js";
import { startServer, type TestServer } from "../../../helpers/server.js";
import { testTools } from "../../../helpers/tools.js";
import { eventually } from "../../../helpers/wait.js";

// This file's own redis-server: pausing it must not stall the other files' Redis.
let redis: RedisServer;
let admin: Redis;
let s: TestServer;

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
  // A short lostAfterMs: the orphan sweep runs every lostAfterMs.
  s = await startServer({
    config: { redis: { url: redis.url }, executions: { maxActivePerCaller: 2, lostAfterMs: 300 } },
    tools: testTools(),
  });
});
afterAll(async () => {
  await admin?.call("CLIENT", "UNPAUSE").catch(() => undefined);
  await s?.close();
  admin?.disconnect();
  await redis?.stop();
});

/** Every execution record in Redis that is still `queued`. */
async function queuedRecords(): Promise<string[]> {
  const out: string[] = [];
  for (const k of await admin.keys("{toolnexus}:x:*")) {
    if (k.endsWith(":events")) continue;
    if ((await admin.hget(k, "status")) === "queued") out.push(k);
  }
  return out;
}

describe("a submit answered 503 while Redis stalls", () => {
  it("is not left queued without a job: the retry with the same Idempotency-Key runs to completion", async () => {
    const headers = { "idempotency-key": "stall-1" };
    const body = { arguments: { text: "after the stall" } };
    // Writes stall, reads still answer: the submit's write is held until Redis resumes.
    await admin.call("CLIENT", "PAUSE", "60000", "WRITE");
    const refused = await submit(s.url, "echo", body, headers);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ code: "STORE_UNAVAILABLE" });
    await admin.call("CLIENT", "UNPAUSE");

    const retried = await acceptedExecution(
      await eventually(
        async () => {
          const res = await submit(s.url, "echo", body, headers);
          return res.status === 202 ? res : undefined;
        },
        { timeoutMs: 10_000, everyMs: 100 },
      ),
    );
    const done = await pollUntil(s.url, retried.id, ["succeeded", "failed"]);
    expect(done).toMatchObject({ status: "succeeded", result: { output: "after the stall", isError: false } });
    expect(await queuedRecords()).toEqual([]);
    // No slot is held: the caller can have maxActivePerCaller (2) executions again.
    for (let i = 0; i < 2; i++) expect((await submit(s.url, "slow", { arguments: { ms: 1 } })).status).toBe(202);
  });
});

describe("the orphan sweep", () => {
  it("fails a queued execution that has no job (EXECUTION_LOST) and frees its slot", async () => {
    // A record as an older version left it: written, its job never added.
    const real = await acceptedExecution(await submit(s.url, "echo", { arguments: { text: "x" } }));
    await pollUntil(s.url, real.id, ["succeeded"]);
    const owner = (await admin.hget(`{toolnexus}:x:${real.id}`, "owner")) ?? "";
    const id = "0123456789abcdef0123456789abcdef";
    const now = new Date().toISOString();
    await admin.hset(`{toolnexus}:x:${id}`, {
      id,
      tool: "echo",
      owner,
      status: "queued",
      createdAt: now,
      updatedAt: now,
      expiresAt: now,
      fp: "f",
      seq: "999",
      evn: "0",
      exp: String(Date.now() + 60_000),
      ik: "",
    });
    await admin.sadd(`{toolnexus}:active:${owner}`, id);
    await admin.zadd(`{toolnexus}:owner:${owner}`, 999, id);

    const lost = await pollUntil(s.url, id, ["failed"]);
    expect(lost.error).toMatchObject({ code: "EXECUTION_LOST", status: 502 });
    expect(await admin.sismember(`{toolnexus}:active:${owner}`, id)).toBe(0);
    // A finished execution is left alone.
    expect((await getExecution(s.url, real.id)).body.status).toBe("succeeded");
  });
});
