import type { RedisClient } from "../../redis/connect-redis.js";
import { scanAll } from "../../redis/scan.js";
import { store, toExecution, type ExecutionKeys } from "./records.js";
import { isTerminal } from "../schemas.js";
import type { OwnedExecution, OwnedExecutionPage } from "../engine/store.js";

/**
 * A page of every owner's executions on Redis, newest first, for operators. The store keeps
 * one index per owner, scored by the one global sequence: the newest `limit + 1` of each
 * index below the cursor, merged by score, are the newest of all. Owners are few (API keys,
 * token subjects), so a page costs a scan of their indexes and one read per owner.
 */
export async function listAllExecutions(
  redis: RedisClient,
  key: ExecutionKeys,
  q: { active?: boolean; limit: number; cursor?: string },
): Promise<OwnedExecutionPage> {
  // Every owner index of the store: `key.owner("")` is their common prefix.
  const indexes = await store(scanAll(redis, `${key.owner("")}*`, 1000));
  const page: { seq: number; item: OwnedExecution }[] = [];
  let max = q.cursor === undefined ? "+inf" : `(${q.cursor}`;
  // Batches until the page is full (`active` may skip finished ones).
  for (;;) {
    const batch = await newestBelow(redis, indexes, max, q.limit + 1);
    if (batch.length === 0) break;
    const pipeline = redis.pipeline();
    for (const b of batch) pipeline.hgetall(key.record(b.id));
    const records = (await store(pipeline.exec())) ?? [];
    records.forEach(([, rec], i) => {
      const r = rec as Record<string, string>;
      const execution = toExecution(r, r.owner ?? "");
      if (!execution || (q.active && isTerminal(execution.status))) return;
      page.push({ seq: batch[i]?.seq ?? 0, item: { owner: r.owner ?? "", execution } });
    });
    max = `(${batch.at(-1)?.seq}`;
    if (page.length > q.limit || batch.length < q.limit + 1) break;
  }
  const shown = page.slice(0, q.limit);
  return { executions: shown.map((p) => p.item), ...(page.length > q.limit ? { next: String(shown.at(-1)?.seq) } : {}) };
}

/** The owner of execution `id` on Redis, when it exists. */
export async function ownerOnRedis(redis: RedisClient, key: ExecutionKeys, id: string): Promise<string | undefined> {
  return (await store(redis.hget(key.record(id), "owner"))) ?? undefined;
}

// The `n` newest ids of all `indexes` scored below `max`, newest first.
async function newestBelow(redis: RedisClient, indexes: string[], max: string, n: number): Promise<{ id: string; seq: number }[]> {
  if (indexes.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const index of indexes) pipeline.zrevrangebyscore(index, max, "-inf", "WITHSCORES", "LIMIT", 0, n);
  const merged: { id: string; seq: number }[] = [];
  for (const [, reply] of (await store(pipeline.exec())) ?? []) {
    const flat = (reply as string[] | null) ?? [];
    for (let i = 0; i < flat.length; i += 2) merged.push({ id: flat[i] ?? "", seq: Number(flat[i + 1]) });
  }
  return merged.sort((a, b) => b.seq - a.seq).slice(0, n);
}
