import type { RedisClient } from "../../redis/connect-redis.js";
import type { RedisChannels } from "./channels.js";
import { store, toExecution, type ExecutionKeys } from "./records.js";
import { isTerminal, type ExecutionStatusT, type ExecutionT } from "../schemas.js";
import type { ExecutionEvent, ExecutionPage, Watch } from "../engine/store.js";

/** A page of `owner`'s executions on Redis, newest first; expired ones are dropped from the index as they are met. */
export async function listExecutions(
  redis: RedisClient,
  key: ExecutionKeys,
  owner: string,
  q: { status?: ExecutionStatusT; limit: number; cursor?: string },
): Promise<ExecutionPage> {
  const page: { seq: string; execution: ExecutionT }[] = [];
  let max = q.cursor === undefined ? "+inf" : `(${q.cursor}`;
  // Batches until the page is full (a status filter or expired entries may skip some).
  for (;;) {
    const batch = await store(redis.zrevrangebyscore(key.owner(owner), max, "-inf", "WITHSCORES", "LIMIT", 0, q.limit + 1));
    if (batch.length === 0) break;
    const pipeline = redis.pipeline();
    const ids: string[] = [];
    for (let i = 0; i < batch.length; i += 2) {
      ids.push(batch[i] ?? "");
      pipeline.hgetall(key.record(batch[i] ?? ""));
    }
    const records = (await store(pipeline.exec())) ?? [];
    const gone: string[] = [];
    records.forEach(([, rec], i) => {
      const execution = toExecution(rec as Record<string, string>, owner);
      if (!execution) gone.push(ids[i] ?? "");
      else if (!q.status || execution.status === q.status) page.push({ seq: batch[i * 2 + 1] ?? "", execution });
    });
    if (gone.length) await store(redis.zrem(key.owner(owner), ...gone));
    max = `(${batch.at(-1)}`;
    if (page.length > q.limit || batch.length < 2 * (q.limit + 1)) break;
  }
  const shown = page.slice(0, q.limit);
  return { executions: shown.map((p) => p.execution), ...(page.length > q.limit ? { next: shown.at(-1)?.seq } : {}) };
}

/**
 * Follows execution `id` of `owner`: its stored events after `after`, then the live ones, each
 * delivered once and in order (undefined: no such execution of theirs).
 */
export async function watchExecution(
  redis: RedisClient,
  key: ExecutionKeys,
  channels: RedisChannels,
  owner: string,
  id: string,
  after: number,
  onEvent: (e: ExecutionEvent) => void,
): Promise<Watch | undefined> {
  let last = after;
  let early: ExecutionEvent[] | undefined = [];
  const deliver = (e: ExecutionEvent) => {
    if (e.id <= last) return;
    last = e.id;
    onEvent(e);
  };
  // Reads the stored events after the last delivered one: the backlog, and what pub/sub
  // missed while the subscriber was reconnecting.
  const catchUp = async () => {
    for (const line of await store(redis.lrange(key.events(id), last, -1))) deliver(JSON.parse(line) as ExecutionEvent);
  };
  // Subscribe first, then read: an event published in between is in the list or the buffer.
  const unlisten = await store(
    channels.listen(key.channel(id), (line) => {
      const e = JSON.parse(line) as ExecutionEvent;
      if (early) early.push(e);
      else deliver(e);
    }),
  );
  const noResync = channels.onReconnect(() => void catchUp().catch(() => undefined));
  const stop = () => {
    unlisten();
    noResync();
  };
  try {
    const execution = toExecution(await store(redis.hgetall(key.record(id))), owner);
    if (!execution) {
      stop();
      return undefined;
    }
    await catchUp();
    const buffered = early;
    early = undefined;
    for (const e of buffered) deliver(e);
    if (isTerminal(execution.status)) stop();
    return { execution, stop };
  } catch (err) {
    stop();
    throw err;
  }
}
