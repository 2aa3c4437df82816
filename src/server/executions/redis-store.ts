import { Queue, Worker, type Job as BullJob } from "bullmq";
import type { Redis } from "ioredis";
import type { FastifyBaseLogger } from "fastify";
import { ToolnexusError } from "../../core/errors.js";
import type { InputRequests, InputResponses } from "../../core/input-requests.js";
import type { Progress } from "../../core/types.js";
import type { ExecutionsConfig } from "../../config/schema/index.js";
import { toProblem } from "../http/problem.js";
import { newExecutionId } from "./memory-store.js";
import { RedisChannels } from "./redis-channels.js";
import { key, store, toExecution, unavailable } from "./redis-records.js";
import { withExecutionCommands, type ExecutionCommands } from "./redis-scripts.js";
import { iso, OrphanSweep, recordOutcome } from "./redis-outcomes.js";
import { createWithJob, precheck, submitArgs, type SubmitCall, type SubmitVerdict } from "./redis-submit.js";
import { checkResponses, InputWaits, notWaiting, stillOpen } from "./input-wait.js";
import { isTerminal, type ExecutionStatusT, type ExecutionT } from "./schemas.js";
import type { Adopted, Adoption, ExecutionEvent, ExecutionPage, ExecutionStore, Job, Outcome, Runner, Submission, Watch } from "./store.js";

const QUEUE = "toolnexus-executions";
const CANCEL_CHANNEL = "toolnexus:cancel";
// Answers to held calls travel like cancels: broadcast, and the replica holding the call takes it.
const INPUT_CHANNEL = "toolnexus:input";
// BullMQ's reason for a job whose worker stopped renewing its lock (its replica died).
const STALLED = /stalled/i;

/** Connections the Redis store uses: commands (fail fast), and two that wait out an outage. */
export interface RedisConnections {
  commands: Redis;
  /** For the BullMQ queue (BullMQ closes it with the queue); fails fast like `commands`. */
  queue: Redis;
  /** For the BullMQ worker (it blocks waiting for jobs). */
  worker: Redis;
  subscriber: Redis;
}

/**
 * Executions on Redis: records and events in Redis, runs through a BullMQ
 * queue so any replica's worker may take one. Cancel is broadcast and the replica running
 * the job aborts it (BullMQ's per-job AbortSignal); a replica that dies stops renewing its
 * job locks and BullMQ's stalled-job check on a live replica fails the job, which marks the
 * execution EXECUTION_LOST within `executions.lostAfterMs`.
 */
export class RedisExecutionStore implements ExecutionStore {
  private readonly redis: Redis & ExecutionCommands;
  private readonly queue: Queue<Job>;
  private readonly worker: Worker<Job>;
  private readonly channels: RedisChannels;
  /** Runs of this replica until their outcome is recorded. */
  private readonly running = new Set<Promise<void>>();
  private readonly sweeper: NodeJS.Timeout;
  /** This replica's held calls waiting for an answer. */
  private readonly waits = new InputWaits();
  /** Calls of this replica adopted as executions (promoted when they asked mid-call): their cancel. */
  private readonly adopted = new Map<string, AbortController>();

  constructor(
    conns: RedisConnections,
    private readonly config: () => ExecutionsConfig,
    private readonly runner: Runner,
    private readonly log: FastifyBaseLogger,
    concurrency: number,
    /** `server.inputTimeoutMs`, read per wait. */
    private readonly inputTimeoutMs: () => number = () => 600_000,
  ) {
    this.redis = withExecutionCommands(conns.commands);
    // The queue's connection runs the submit script in the MULTI that also adds the job.
    withExecutionCommands(conns.queue);
    this.channels = new RedisChannels(conns.subscriber);
    this.queue = new Queue<Job>(QUEUE, { connection: conns.queue });
    const { lostAfterMs } = config();
    // Worst case from a death to the check that fails its job: lock expiry plus two checks.
    const lockDuration = Math.max(Math.floor(lostAfterMs / 3), 100);
    this.worker = new Worker<Job>(QUEUE, (job, _token, signal) => this.track(this.process(job, signal)), {
      connection: conns.worker,
      concurrency,
      lockDuration,
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
    this.queue.on("error", (err) => log.debug({ err: err.message }, "execution queue error"));
    this.channels.always(CANCEL_CHANNEL, (id) => {
      this.worker.cancelJob(id, "cancelled");
      this.adopted.get(id)?.abort(cancelled());
    });
    this.channels.always(INPUT_CHANNEL, (message) => {
      const { id, responses } = JSON.parse(message) as { id: string; responses: InputResponses };
      this.waits.answer(id, responses);
    });
    const orphans = new OrphanSweep(this.redis, (id) => this.queue.toKey(id), config, log);
    this.sweeper = setInterval(
      () => void orphans.run().catch((err: Error) => log.debug({ err: err.message }, "orphan sweep failed")),
      lostAfterMs,
    );
    this.sweeper.unref();
  }

  async submit(s: Submission, fingerprint: string): Promise<{ execution: ExecutionT; replayed: boolean }> {
    const { maxActivePerCaller } = this.config();
    const id = newExecutionId();
    const call = this.submitCall(s, id, fingerprint);
    const job: Job = {
      id,
      owner: s.owner,
      tool: s.tool,
      body: s.body,
      requestId: s.requestId,
      ...(s.callerToken ? { callerToken: s.callerToken } : {}),
    };
    // The record and its job are written together or not at all (see createWithJob).
    const [verdict, earlier] = (await precheck(this.redis, call)) ?? (await createWithJob(this.queue, call, job));
    if (verdict === "reused") throw new ToolnexusError("IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was already used for another call");
    if (verdict === "overloaded") throw overloaded(maxActivePerCaller);
    if (verdict === "replay" && earlier) {
      const execution = await this.get(s.owner, earlier);
      if (execution) return { execution, replayed: true };
    }
    const execution = await this.get(s.owner, id);
    if (!execution) throw unavailable();
    return { execution, replayed: false };
  }

  // No job: the call already runs here. A replica that dies with it leaves it to its expiry
  // (BullMQ's stalled check, which finds lost jobs, knows nothing of it).
  async adopt(a: Adoption): Promise<Adopted> {
    const id = newExecutionId();
    const c = this.submitCall(a, id, "");
    const [verdict] = (await store(this.redis.tnxSubmit(...submitArgs(c)))) as SubmitVerdict;
    if (verdict === "overloaded") throw overloaded(c.max);
    await store(this.redis.tnxStart(c.record, iso(Date.now())));
    const execution = await this.get(a.owner, id);
    if (!execution) throw unavailable();
    const cancel = new AbortController();
    this.adopted.set(id, cancel);
    let settle = () => {};
    void this.track(new Promise<void>((r) => (settle = r)));
    const job: Job = { id, owner: a.owner, tool: a.tool, body: {}, requestId: a.requestId };
    return {
      execution,
      hooks: {
        signal: cancel.signal,
        onStart: () => undefined,
        onProgress: (p) => void this.progress(id, p),
        onInputRequest: (requests, onAsked) => this.ask(id, requests, cancel.signal, onAsked),
      },
      finish: async (outcome) => {
        try {
          await this.record(job, outcome);
        } finally {
          this.adopted.delete(id);
          settle();
        }
      },
    };
  }

  async input(owner: string, id: string, responses: InputResponses, partial = false): Promise<ExecutionT | undefined> {
    const rec = await store(this.redis.hgetall(key.record(id)));
    const execution = toExecution(rec, owner);
    if (!execution) return undefined;
    if (execution.status !== "input_required" || !execution.inputRequests) throw stateError(execution);
    checkResponses(execution.inputRequests, responses, partial);
    if (Object.keys(responses).length === 0) return execution;
    const answered = { ...(rec.answered ? (JSON.parse(rec.answered) as InputResponses) : {}), ...responses };
    const open = stillOpen(execution.inputRequests, answered);
    const now = iso(Date.now());
    // The record's inputs are compared in the script: of two answers racing, one is taken.
    const verdict = await store(
      Object.keys(open).length > 0
        ? this.redis.tnxPartial(key.record(id), now, rec.inputs ?? "", JSON.stringify(open), JSON.stringify(answered))
        : this.redis.tnxAnswer(key.record(id), now, rec.inputs ?? ""),
    );
    if (verdict !== "ok") throw notWaiting(verdict);
    if (Object.keys(open).length === 0) await store(this.redis.publish(INPUT_CHANNEL, JSON.stringify({ id, responses: answered })));
    return this.get(owner, id);
  }

  private submitCall(s: Adoption & { idempotencyKey?: string }, id: string, fingerprint: string): SubmitCall {
    const { maxActivePerCaller, retentionMs } = this.config();
    const now = Date.now();
    const expireAt = now + s.timeoutMs + retentionMs;
    return {
      idem: s.idempotencyKey === undefined ? "" : key.idempotency(s.owner, s.idempotencyKey),
      active: key.active(s.owner),
      ownerIndex: key.owner(s.owner),
      seq: key.seq,
      record: key.record(id),
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

  async get(owner: string, id: string): Promise<ExecutionT | undefined> {
    return toExecution(await store(this.redis.hgetall(key.record(id))), owner);
  }

  async list(owner: string, q: { status?: ExecutionStatusT; limit: number; cursor?: string }): Promise<ExecutionPage> {
    const page: { seq: string; execution: ExecutionT }[] = [];
    let max = q.cursor === undefined ? "+inf" : `(${q.cursor}`;
    // Batches until the page is full (a status filter or expired entries may skip some).
    for (;;) {
      const batch = await store(this.redis.zrevrangebyscore(key.owner(owner), max, "-inf", "WITHSCORES", "LIMIT", 0, q.limit + 1));
      if (batch.length === 0) break;
      const pipeline = this.redis.pipeline();
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
      if (gone.length) await store(this.redis.zrem(key.owner(owner), ...gone));
      max = `(${batch.at(-1)}`;
      if (page.length > q.limit || batch.length < 2 * (q.limit + 1)) break;
    }
    const shown = page.slice(0, q.limit);
    return { executions: shown.map((p) => p.execution), ...(page.length > q.limit ? { next: shown.at(-1)?.seq } : {}) };
  }

  async cancel(owner: string, id: string): Promise<ExecutionT | undefined> {
    const execution = await this.get(owner, id);
    if (!execution || isTerminal(execution.status)) return execution;
    const job: Job = { id, owner, tool: execution.tool, body: {}, requestId: "" };
    // Still queued: no worker has it, so it ends here (the worker skips it when it comes).
    if (execution.status === "queued" && (await this.finish(job, { status: "cancelled", error: toProblem(cancelled(), "") }))) {
      await this.queue.remove(id).catch(() => undefined);
    } else {
      await store(this.redis.publish(CANCEL_CHANNEL, id));
    }
    // The running replica records `cancelled` once its call settles, which is at once on abort.
    const end = Date.now() + 5_000;
    for (;;) {
      const now = await this.get(owner, id);
      if (!now || isTerminal(now.status) || Date.now() > end) return now;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async watch(owner: string, id: string, after: number, onEvent: (e: ExecutionEvent) => void): Promise<Watch | undefined> {
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
      for (const line of await store(this.redis.lrange(key.events(id), last, -1))) deliver(JSON.parse(line) as ExecutionEvent);
    };
    // Subscribe first, then read: an event published in between is in the list or the buffer.
    const unlisten = await store(
      this.channels.listen(key.channel(id), (line) => {
        const e = JSON.parse(line) as ExecutionEvent;
        if (early) early.push(e);
        else deliver(e);
      }),
    );
    const noResync = this.channels.onReconnect(() => void catchUp().catch(() => undefined));
    const stop = () => {
      unlisten();
      noResync();
    };
    try {
      const execution = await this.get(owner, id);
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

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    // Waits for the runs of this replica (shutdown aborts them after its grace period) so
    // their outcome is recorded before the connections close.
    await this.worker.pause(true).catch(() => undefined);
    await Promise.allSettled([...this.running]);
    await this.worker.close();
    await this.queue.close();
  }

  private track(run: Promise<void>): Promise<void> {
    this.running.add(run);
    void run.finally(() => this.running.delete(run)).catch(() => undefined);
    return run;
  }

  private async process(bull: BullJob<Job>, signal?: AbortSignal): Promise<void> {
    const job = bull.data;
    if ((await this.redis.tnxStart(key.record(job.id), iso(Date.now()))) !== 1) return; // cancelled while queued, or expired
    const aborted = signal ?? new AbortController().signal;
    const outcome = await this.runner(job, {
      signal: aborted,
      onStart: () => undefined,
      onProgress: (p) => void this.progress(job.id, p),
      onInputRequest: (requests, onAsked) => this.ask(job.id, requests, aborted, onAsked),
    });
    await this.record(job, outcome);
  }

  // The outcome must reach Redis; a short outage is waited out rather than losing it.
  private async record(job: Job, outcome: Outcome): Promise<void> {
    this.waits.end(job.id, new ToolnexusError("CANCELLED", "The call ended before the answer came"));
    for (let attempt = 0; ; attempt++) {
      try {
        await this.finish(job, outcome);
        return;
      } catch (err) {
        this.log.warn({ err: (err as Error).message, execution: job.id, attempt }, "outcome not recorded yet; retrying");
        if (attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  private async ask(id: string, requests: InputRequests, signal: AbortSignal, onAsked?: () => void): Promise<InputResponses> {
    const json = JSON.stringify(requests);
    // Waiting before the record says so: an answer published at once is not missed.
    const answer = this.waits.wait(id, this.inputTimeoutMs(), signal);
    try {
      if ((await store(this.redis.tnxAsk(key.record(id), key.events(id), iso(Date.now()), json, key.channel(id)))) !== 1) {
        throw notWaiting("over");
      }
    } catch (err) {
      this.waits.answer(id, {});
      void answer.catch(() => undefined);
      throw err;
    }
    onAsked?.();
    return answer;
  }

  private async progress(id: string, p: Progress): Promise<void> {
    await this.redis
      .tnxProgress(key.record(id), key.events(id), iso(Date.now()), JSON.stringify(p), key.channel(id))
      .catch((err: Error) => {
        this.log.debug({ err: err.message, execution: id }, "progress not recorded");
      });
  }

  private async lost(job: Job): Promise<void> {
    const error = toProblem(new ToolnexusError("EXECUTION_LOST", "The replica running this execution stopped"), job.requestId);
    await this.finish(job, { status: "failed", error }).catch((err: Error) =>
      this.log.warn({ err: err.message, execution: job.id }, "lost execution not recorded"),
    );
  }

  /** Records the outcome unless the execution already ended; true when it ended here. */
  private finish(job: Job, outcome: Outcome): Promise<boolean> {
    return recordOutcome(this.redis, this.config(), job, outcome);
  }
}

function overloaded(max: number): ToolnexusError {
  return new ToolnexusError("OVERLOADED", `More than ${max} executions queued or running for this caller`, {
    headers: { "retry-after": "1" },
  });
}

/** Why an execution that is not `input_required` takes no answer: its wait timed out, or it waits on nothing. */
function stateError(e: ExecutionT): ToolnexusError {
  if (e.error?.code === "INPUT_TIMEOUT") return new ToolnexusError("INPUT_TIMEOUT", "The input request has expired");
  return notWaiting(e.status);
}

function cancelled(): ToolnexusError {
  return new ToolnexusError("CANCELLED", "The execution was cancelled");
}
