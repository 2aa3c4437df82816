import { Job as BullJob, type Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { RedisClient } from "../../redis/connect-redis.js";
import type { ExecutionsConfig } from "../../../config/schema/index.js";
import { iso } from "../schemas.js";
import { store, unavailable, type ExecutionKeys } from "./records.js";
import type { ExecutionCommands } from "./scripts.js";
import type { ExecutionT } from "../schemas.js";
import type { Adoption, Job } from "../engine/store.js";

/** What the submit script decided: a new record, or why not (with the earlier id for a replay). */
export type SubmitVerdict = [verdict: "created" | "reused" | "replay" | "overloaded", earlier?: string];

/** The keys and arguments of one `tnxSubmit` call, in the script's order. */
export interface SubmitCall {
  /** The Idempotency-Key's key ("" for none). */
  idem: string;
  /** The key passed instead when there is none: of the same hash tag as the others. */
  noIdem: string;
  active: string;
  ownerIndex: string;
  seq: string;
  record: string;
  /** The prefix the script reads other records under. */
  recordPrefix: string;
  id: string;
  fingerprint: string;
  max: number;
  expireAt: number;
  nowIso: string;
  tool: string;
  owner: string;
  expiresAtIso: string;
}

/**
 * The verdict the submit script would give, read without writing (plain reads, which a
 * Redis paused for writes still answers), so a submit that will be refused (a replay, a
 * reused key, a full caller) adds no job. {@link createWithJob} decides again atomically:
 * a race between two submits is settled there.
 */
export async function precheck(redis: RedisClient, c: SubmitCall): Promise<SubmitVerdict | undefined> {
  // Sent together: one round trip. A count, not the members: every submit pays for this reply.
  const [prev, count] = await store(Promise.all([c.idem === "" ? null : redis.get(c.idem), redis.scard(c.active)]));
  if (prev) {
    const fp = await store(redis.hget(c.recordPrefix + prev, "fp"));
    if (fp) return fp === c.fingerprint ? ["replay", prev] : ["reused"];
  }
  if (count < c.max) return undefined;
  // Ids whose record expired unfinished no longer count (the script drops them from the set).
  const active = await store(redis.smembers(c.active));
  const live = active.length ? await store(redis.exists(...active.map((id) => c.recordPrefix + id))) : 0;
  return live >= c.max ? ["overloaded"] : undefined;
}

/**
 * The execution the submit script just created, as it wrote it: the 202 needs no read back
 * (a worker may have started it meanwhile; `queued` was still true when it was accepted).
 */
export function submitted(c: SubmitCall): ExecutionT {
  return { id: c.id, tool: c.tool, status: "queued", createdAt: c.nowIso, updatedAt: c.nowIso, expiresAt: c.expiresAtIso };
}

/** The submit script's keys and arguments for `c`, in its order (scripts.ts SUBMIT). */
export function submitArgs(c: SubmitCall): string[] {
  return [
    c.idem === "" ? c.noIdem : c.idem,
    c.active,
    c.ownerIndex,
    c.seq,
    c.record,
    c.id,
    c.fingerprint,
    String(c.max),
    String(c.expireAt),
    c.nowIso,
    c.recordPrefix,
    c.tool,
    c.owner,
    c.expiresAtIso,
    c.idem === "" ? "" : "1",
  ];
}

/**
 * Writes the record and adds its BullMQ job in one MULTI: both or neither. A submit that
 * timed out (503) while Redis stalled and is carried out when Redis comes back therefore
 * leaves an execution that runs, which a retry with the same Idempotency-Key then finds,
 * never a `queued` record no worker will take. When the script refuses (a racing submit got
 * there first), the job it came with is removed again; a worker that took it first finds no
 * queued record and skips it.
 */
export async function createWithJob(queue: Queue<Job>, c: SubmitCall, job: Job): Promise<SubmitVerdict> {
  const client = await store(queue.getBackend().client);
  const multi = client.multi() as unknown as ReturnType<Redis["multi"]> & ExecutionCommands;
  void multi.tnxSubmit(...submitArgs(c));
  await new BullJob(queue, "execute", job, { jobId: job.id, removeOnComplete: true, removeOnFail: true }, job.id).addJob(multi as never);
  const results = await store(multi.exec());
  const [err, verdict] = results?.[0] ?? [new Error("transaction discarded")];
  const [jobErr] = results?.[1] ?? [];
  // Neither fails short of a broken Redis; a record left without its job is the sweep's.
  if (err || jobErr) throw unavailable(err ?? jobErr);
  const v = verdict as SubmitVerdict;
  if (v[0] !== "created") await queue.remove(job.id).catch(() => undefined);
  return v;
}

/** The submit script's keys and arguments for call `s` as execution `id` (expiring after its timeout and the retention). */
export function submitCallOf(
  key: ExecutionKeys,
  config: ExecutionsConfig,
  s: Adoption & { idempotencyKey?: string },
  id: string,
  fingerprint: string,
): SubmitCall {
  const { maxActivePerCaller, retentionMs } = config;
  const now = Date.now();
  const expireAt = now + s.timeoutMs + retentionMs;
  return {
    idem: s.idempotencyKey === undefined ? "" : key.idempotency(s.owner, s.idempotencyKey),
    noIdem: key.seq,
    active: key.active(s.owner),
    ownerIndex: key.owner(s.owner),
    seq: key.seq,
    record: key.record(id),
    recordPrefix: key.recordPrefix,
    id,
    fingerprint,
    max: maxActivePerCaller,
    expireAt,
    nowIso: iso(now),
    tool: s.tool,
    owner: s.owner,
    expiresAtIso: iso(expireAt),
  };
}
