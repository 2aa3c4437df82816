/**
 * The BullMQ worker of one replica and the steps of each run it takes: turning the execution
 * running, its progress, its outcome, and the outcome of a run whose replica died. Apart from
 * store.ts (the ExecutionStore methods a request calls) because these are the worker's side,
 * each step waiting out a Redis outage for as long as the job's lock lets it.
 */
import { randomUUID } from "node:crypto";
import { Worker, type Job as BullJob } from "bullmq";
import type { FastifyBaseLogger } from "fastify";
import type { RedisClient } from "../../redis/connect-redis.js";
import { ToolnexusError } from "../../../core/errors.js";
import type { Progress } from "../../../core/types.js";
import type { ExecutionsConfig } from "../../../config/schema/index.js";
import { toProblem } from "../../http/problem.js";
import { persistently, type ExecutionKeys } from "./records.js";
import type { ExecutionCommands } from "./scripts.js";
import { recordOutcome } from "./outcomes.js";
import type { RedisInput } from "./input.js";
import { iso } from "../schemas.js";
import type { Job, Outcome, Runner } from "../engine/store.js";

/** The BullMQ queue every replica submits to and takes jobs from. */
export const EXECUTION_QUEUE = "toolnexus-executions";
// BullMQ's reason for a job whose worker stopped renewing its lock (its replica died).
const STALLED = /stalled/i;
// An outcome waits at least this long for Redis (an outage, a failover) rather than being lost.
const OUTCOME_WITHIN_MS = 10_000;

/**
 * Takes this replica's share of the queue's jobs and runs them; records the outcome of every
 * run of this replica, adopted calls' too. A job whose replica died (BullMQ's stalled check,
 * on any live replica) or whose outcome could not be written ends EXECUTION_LOST here.
 */
export class ExecutionWorker {
  private readonly worker: Worker<Job>;
  /** Runs of this replica until their outcome is recorded. */
  private readonly running = new Set<Promise<void>>();
  /** How long a job's lock lasts unrenewed: past it, another replica's stalled check fails the job. */
  private readonly lockMs: number;
  /** How long an outcome waits for Redis: while the job's lock lasts no replica ends it otherwise. */
  private readonly outcomeWithinMs: number;

  constructor(
    /** The connection the worker blocks on waiting for jobs. */
    connection: RedisClient,
    concurrency: number,
    private readonly redis: RedisClient & ExecutionCommands,
    private readonly key: ExecutionKeys,
    private readonly config: () => ExecutionsConfig,
    private readonly runner: Runner,
    /** Questions of this replica's runs to their callers. */
    private readonly inputs: RedisInput,
    private readonly log: FastifyBaseLogger,
  ) {
    const { lostAfterMs } = config();
    // Worst case from a death to the check that fails its job: lock expiry plus two checks.
    this.lockMs = Math.max(Math.floor(lostAfterMs / 3), 100);
    this.outcomeWithinMs = Math.max(this.lockMs, OUTCOME_WITHIN_MS);
    this.worker = new Worker<Job>(EXECUTION_QUEUE, (job, token, signal) => this.track(this.process(job, token ?? randomUUID(), signal)), {
      connection,
      prefix: key.bullPrefix,
      concurrency,
      lockDuration: this.lockMs,
      stalledInterval: Math.max(Math.floor(lostAfterMs / 4), 50),
      maxStalledCount: 0,
    });
    // A stalled job (its replica died) fails here; so does a run whose outcome could not be
    // written. Either way the execution must not stay running: it is lost (a no-op when it ended).
    this.worker.on("failed", (job, err) => {
      if (!job) return;
      if (!STALLED.test(err.message)) log.warn({ err: err.message, execution: job.data.id }, "execution job failed");
      void this.lost(job.data);
    });
    this.worker.on("error", (err) => log.debug({ err: err.message }, "execution worker error"));
  }

  /** Aborts the run of job `id` when this replica runs it (a cancel is broadcast to every replica). */
  cancelJob(id: string): void {
    this.worker.cancelJob(id, "cancelled");
  }

  /** Stops taking jobs; the runs already taken go on. */
  pause(): Promise<void> {
    return this.worker.pause(true);
  }

  /** Resolves once every run of this replica has recorded its outcome (or given up). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  /** Closes the worker (after {@link settled}: its runs are over). */
  close(): Promise<void> {
    return this.worker.close();
  }

  /** Counts `run` among this replica's runs until it settles. */
  track(run: Promise<void>): Promise<void> {
    this.running.add(run);
    void run.finally(() => this.running.delete(run)).catch(() => undefined);
    return run;
  }

  /**
   * Records the outcome of a run of this replica and ends its input wait. The outcome must
   * reach Redis: an outage is waited out at least as long as the job's lock lasts.
   */
  async record(job: Job, outcome: Outcome): Promise<void> {
    this.inputs.end(job.id);
    await persistently(
      () => this.finish(job, outcome),
      this.outcomeWithinMs,
      (err, attempt) => this.log.warn({ err: err.message, execution: job.id, attempt }, "outcome not recorded yet; retrying"),
    );
  }

  /** Records a progress report of execution `id`; a failure only loses the report. */
  async progress(id: string, p: Progress): Promise<void> {
    await this.redis
      .tnxProgress(this.key.record(id), this.key.events(id), iso(Date.now()), JSON.stringify(p), this.key.channel(id))
      .catch((err: Error) => {
        this.log.debug({ err: err.message, execution: id }, "progress not recorded");
      });
  }

  /** Records the outcome unless the execution already ended; true when it ended here. */
  finish(job: Job, outcome: Outcome): Promise<boolean> {
    return recordOutcome(this.redis, this.key, this.config(), job, outcome);
  }

  // `run` is the job's lock token: the start is this run's only, however often it is retried.
  private async process(bull: BullJob<Job>, run: string, signal?: AbortSignal): Promise<void> {
    const job = bull.data;
    if (!(await this.start(job.id, run))) return; // cancelled while queued, expired, or another run's
    const aborted = signal ?? new AbortController().signal;
    const outcome = await this.runner(job, {
      signal: aborted,
      onStart: () => undefined,
      onProgress: (p) => void this.progress(job.id, p),
      onInputRequest: (requests, onAsked) => this.inputs.ask(job.id, requests, aborted, onAsked),
    });
    await this.record(job, outcome);
  }

  /**
   * Turns the execution running as `run`. A job taken just before an outage or a failover must
   * not fail for it: that would end the execution lost, or leave it queued when the failure
   * could not be recorded either. So the start waits Redis out for as long as the job's lock
   * lasts (past it, the stalled check ends the job anyway).
   */
  private start(id: string, run: string): Promise<boolean> {
    const step = async () => (await this.redis.tnxStart(this.key.record(id), iso(Date.now()), run)) === 1;
    return persistently(step, this.lockMs, (err, attempt) =>
      this.log.warn({ err: err.message, execution: id, attempt }, "run not started yet; retrying"),
    );
  }

  private async lost(job: Job): Promise<void> {
    const error = toProblem(new ToolnexusError("EXECUTION_LOST", "The replica running this execution stopped"), job.requestId);
    // Its job is gone once failed: unrecorded, the execution would stay active until it expires.
    await persistently(
      () => this.finish(job, { status: "failed", error }),
      this.outcomeWithinMs,
      () => undefined,
    ).catch((err: Error) => this.log.warn({ err: err.message, execution: job.id }, "lost execution not recorded"));
  }
}
