import type { FastifyBaseLogger } from "fastify";
import type { Redis } from "ioredis";
import type { RedisClient } from "../../redis/connect-redis.js";
import type { ExecutionsConfig } from "../../../config/schema/index.js";
import { ToolnexusError } from "../../../core/errors.js";
import { toProblem } from "../../http/problem.js";
import { persistently, store, type ExecutionKeys } from "./records.js";
import type { ExecutionCommands } from "./scripts.js";
import { iso } from "../schemas.js";
import { recordOutcome } from "./outcomes.js";

/** The lease's lifetime and the sweep's period for `lostAfterMs`: those of a BullMQ job's lock and stalled check (worker.ts). */
export function heldTimings(lostAfterMs: number): { leaseMs: number; sweepMs: number } {
  return { leaseMs: Math.max(Math.floor(lostAfterMs / 3), 100), sweepMs: Math.max(Math.floor(lostAfterMs / 4), 50) };
}

/**
 * The liveness of adopted calls (synchronous calls promoted to executions) on Redis. Such a
 * call has no BullMQ job: it runs where it was received, and BullMQ can only hand a worker
 * the queue's next job, never a given one, so it cannot be "a job its holder took". Its
 * holder keeps a lease instead, a key that expires in Redis' own clock (`leaseMs`, as long as
 * a job's lock) and that it renews at half that, as BullMQ renews its locks; when the holder
 * dies the key expires and {@link HeldSweep} on any replica fails the execution EXECUTION_LOST.
 */
export class HeldLeases {
  private readonly ids = new Set<string>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly redis: RedisClient & ExecutionCommands,
    private readonly key: ExecutionKeys,
    private readonly leaseMs: number,
    private readonly log: FastifyBaseLogger,
  ) {}

  /**
   * Turns the adopted execution `id` running with its lease taken, in one MULTI; false when it
   * is no longer queued. Retried through an outage or a failover for as long as a lease lasts
   * (the MULTI is safe to repeat: the start is the call's own, by its id, however often it runs);
   * failing, the record stays queued without a job, which the orphan sweep ends.
   */
  async start(id: string): Promise<boolean> {
    const once = async () => {
      const multi = this.redis.multi() as unknown as ReturnType<Redis["multi"]> & ExecutionCommands;
      multi.set(this.key.lease(id), "1", "PX", this.leaseMs).sadd(this.key.held, id);
      void multi.tnxStart(this.key.record(id), iso(Date.now()), id);
      return ((await store(multi.exec())) ?? [])[2]?.[1] === 1;
    };
    const started = await persistently(once, this.leaseMs, (err, attempt) =>
      this.log.warn({ err: err.message, execution: id, attempt }, "held call not started yet; retrying"),
    );
    if (started) this.hold(id);
    else void this.release(id);
    return started;
  }

  /** Stops renewing `id`'s lease and drops it (once its outcome is recorded: the sweep never sees it unleased while active). */
  async release(id: string): Promise<void> {
    this.ids.delete(id);
    if (this.ids.size === 0) this.stop();
    await this.redis
      .multi()
      .del(this.key.lease(id))
      .srem(this.key.held, id)
      .exec()
      .catch((err: Error) => this.log.debug({ err: err.message, execution: id }, "held lease not released; it expires"));
  }

  /** Stops renewing every lease (close: the calls ended, or their leases lapse with the process). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private hold(id: string): void {
    this.ids.add(id);
    if (this.timer) return;
    // One timer for every held call of this replica, one round trip per renewal.
    this.timer = setInterval(() => void this.renew(), Math.max(Math.floor(this.leaseMs / 2), 10));
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    const ids = [...this.ids];
    const pipeline = this.redis.pipeline();
    // XX: a lease that lapsed (Redis unreachable for longer than it) is not taken again: the
    // sweep may already have failed its execution, whose late outcome is then dropped.
    for (const id of ids) pipeline.set(this.key.lease(id), "1", "PX", this.leaseMs, "XX");
    const results = await pipeline.exec().catch((err: Error) => {
      this.log.debug({ err: err.message }, "held leases not renewed");
      return null;
    });
    results?.forEach(([, ok], i) => {
      if (ok === null) this.log.warn({ execution: ids[i] }, "held call's lease lapsed; its execution is deemed lost");
    });
  }
}

/**
 * Fails the adopted executions whose lease expired (their replica died) with EXECUTION_LOST,
 * run by every replica every `sweepMs`. Idle, it costs one SMEMBERS.
 */
export class HeldSweep {
  constructor(
    private readonly redis: RedisClient & ExecutionCommands,
    private readonly key: ExecutionKeys,
    private readonly config: () => ExecutionsConfig,
    private readonly log: FastifyBaseLogger,
  ) {}

  async run(): Promise<void> {
    const ids = await this.redis.smembers(this.key.held);
    if (ids.length === 0) return;
    const leases = await this.leased(ids);
    for (const [i, id] of ids.entries()) {
      if (leases[i]) continue;
      const [status, owner] = await this.redis.hmget(this.key.record(id), "status", "owner");
      if (status && owner) {
        const error = toProblem(new ToolnexusError("EXECUTION_LOST", "The replica holding this call stopped"), "");
        const job = { id, owner, tool: "", body: {}, requestId: "" };
        if (await recordOutcome(this.redis, this.key, this.config(), job, { status: "failed", error })) {
          this.log.warn({ execution: id }, "held call's replica stopped renewing its lease: failed as lost");
        }
      }
      await this.redis.srem(this.key.held, id);
    }
  }

  /** Whether each id's lease exists (one round trip). */
  private async leased(ids: string[]): Promise<boolean[]> {
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.exists(this.key.lease(id));
    return ((await pipeline.exec()) ?? []).map(([, n]) => n === 1);
  }
}
