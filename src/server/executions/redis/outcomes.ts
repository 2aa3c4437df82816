import type { FastifyBaseLogger } from "fastify";
import type { RedisClient } from "../../redis/connect-redis.js";
import { scanAll } from "../../redis/scan.js";
import type { ExecutionsConfig } from "../../../config/schema/index.js";
import { ToolnexusError } from "../../../core/errors.js";
import { toProblem } from "../../http/problem.js";
import type { ExecutionKeys } from "./records.js";
import type { ExecutionCommands } from "./scripts.js";
import type { Job, Outcome } from "../engine/store.js";
import { iso } from "../schemas.js";

/**
 * Records an execution's outcome (one script: record, event, active and finished indexes,
 * retention) unless it already ended; true when it ended here. With `orphanOf` (a job key),
 * only a queued execution whose job is missing.
 */
export async function recordOutcome(
  redis: RedisClient & ExecutionCommands,
  key: ExecutionKeys,
  config: ExecutionsConfig,
  job: Job,
  outcome: Outcome,
  orphanOf = "",
): Promise<boolean> {
  const { retentionMs, maxRetainedPerCaller } = config;
  const expireAt = Date.now() + retentionMs;
  const [field, value] = outcome.status === "succeeded" ? ["result", outcome.result] : ["error", outcome.error];
  const done = await redis.tnxFinish(
    key.record(job.id),
    key.events(job.id),
    key.active(job.owner),
    key.owner(job.owner),
    key.finished(job.owner),
    key.seq,
    iso(Date.now()),
    outcome.status,
    field,
    JSON.stringify(value),
    String(expireAt),
    iso(expireAt),
    key.channel(job.id),
    job.id,
    String(maxRetainedPerCaller),
    key.recordPrefix,
    orphanOf,
  );
  return done === 1;
}

/**
 * Fails `queued` executions that have no job (written by an older version that added the
 * job after the record, or whose job was removed behind its back): no worker would ever
 * take them, yet they held a `maxActivePerCaller` slot and answered Idempotency-Key
 * replays. One seen so at two runs in a row (`lostAfterMs` apart) is EXECUTION_LOST.
 */
export class OrphanSweep {
  /** Queued executions without a job at the last run: failed if still so at the next. */
  private orphans = new Set<string>();

  constructor(
    private readonly redis: RedisClient & ExecutionCommands,
    private readonly key: ExecutionKeys,
    private readonly jobKey: (id: string) => string,
    private readonly config: () => ExecutionsConfig,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** One pass over every caller's active set. */
  async run(): Promise<void> {
    const seen = new Set<string>();
    const prefix = this.key.active("");
    for (const set of await scanAll(this.redis, `${prefix}*`, 100)) {
      const owner = set.slice(prefix.length);
      for (const id of await this.redis.smembers(set)) {
        const [status, jobs] = await Promise.all([this.redis.hget(this.key.record(id), "status"), this.redis.exists(this.jobKey(id))]);
        // A record that expired unfinished: its id no longer counts (submit prunes only at the limit).
        if (status === null) await this.redis.srem(set, id);
        if (status !== "queued" || jobs > 0) continue;
        seen.add(id);
        if (!this.orphans.has(id)) continue;
        const error = toProblem(new ToolnexusError("EXECUTION_LOST", "The execution was accepted but never queued for a worker"), "");
        const job = { id, owner, tool: "", body: {}, requestId: "" };
        if (await recordOutcome(this.redis, this.key, this.config(), job, { status: "failed", error }, this.jobKey(id))) {
          this.log.warn({ execution: id }, "queued execution without a job failed as lost");
        }
      }
    }
    this.orphans = seen;
  }
}
