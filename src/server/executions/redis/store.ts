import { Queue } from "bullmq";
import type { RedisClient } from "../../redis/connect-redis.js";
import type { FastifyBaseLogger } from "fastify";
import { ToolnexusError } from "../../../core/errors.js";
import type { InputResponses } from "../../../core/input/requests.js";
import type { ExecutionsConfig } from "../../../config/schema/index.js";
import { toProblem } from "../../http/problem.js";
import { newExecutionId } from "../memory/entry.js";
import { RedisChannels } from "./channels.js";
import { executionKeys, store, toExecution, unavailable, type ExecutionKeys } from "./records.js";
import { withExecutionCommands, type ExecutionCommands } from "./scripts.js";
import { OrphanSweep } from "./outcomes.js";
import { createWithJob, precheck, submitArgs, submitCallOf, submitted, type SubmitVerdict } from "./submit.js";
import { RedisInput } from "./input.js";
import { listExecutions, watchExecution } from "./reads.js";
import { listAllExecutions, ownerOnRedis } from "./admin.js";
import { HeldLeases, HeldSweep, heldTimings } from "./held.js";
import { ExecutionWorker, EXECUTION_QUEUE } from "./worker.js";
import { isTerminal, type ExecutionStatusT, type ExecutionT } from "../schemas.js";
import type {
  Adopted,
  Adoption,
  ExecutionEvent,
  ExecutionPage,
  ExecutionStore,
  Job,
  OwnedExecutionPage,
  Runner,
  Submission,
  Watch,
} from "../engine/store.js";
import { jobOf } from "../engine/store.js";

// BullMQ's pause and close wait for a connection to Redis: with Redis unreachable they would
// hold shutdown forever. They get this long while Redis is connected, no wait while it is not;
// the connections are dropped right after (register.ts).
const BULL_CLOSE_WITHIN_MS = 3_000;
const settledWithin = (p: Promise<unknown>, ms: number): Promise<unknown> =>
  Promise.race([p.catch(() => undefined), new Promise((r) => setTimeout(r, ms).unref())]);

/** Connections the Redis store uses: commands (fail fast), and two that wait out an outage. */
export interface RedisConnections {
  commands: RedisClient;
  /** For the BullMQ queue (BullMQ closes it with the queue); fails fast like `commands`. */
  queue: RedisClient;
  /** For the BullMQ worker (it blocks waiting for jobs). */
  worker: RedisClient;
  subscriber: RedisClient;
}

/**
 * Executions on Redis: records and events in Redis, runs through a BullMQ
 * queue so any replica's worker may take one. Cancel is broadcast and the replica running
 * the job aborts it (BullMQ's per-job AbortSignal); a replica that dies stops renewing its
 * job locks and BullMQ's stalled-job check on a live replica fails the job, which marks the
 * execution EXECUTION_LOST within `executions.lostAfterMs`; a call adopted here (no job) keeps a
 * lease instead, which a live replica's sweep finds lapsed (held.ts).
 */
export class RedisExecutionStore implements ExecutionStore {
  private readonly redis: RedisClient & ExecutionCommands;
  private readonly queue: Queue<Job>;
  /** This replica's worker: it runs jobs and records the outcome of every run here. */
  private readonly worker: ExecutionWorker;
  private readonly channels: RedisChannels;
  private readonly sweeper: NodeJS.Timeout;
  /** Questions of this replica's calls to their callers, and the answers (on any replica). */
  private readonly inputs: RedisInput;
  /** Calls of this replica adopted as executions (promoted when they asked mid-call): their cancel. */
  private readonly adopted = new Map<string, AbortController>();
  /** The leases of this replica's adopted calls: they have no job whose lock would say the replica died. */
  private readonly leases: HeldLeases;
  private readonly heldSweeper: NodeJS.Timeout;

  constructor(
    conns: RedisConnections,
    private readonly config: () => ExecutionsConfig,
    runner: Runner,
    log: FastifyBaseLogger,
    concurrency: number,
    /** `server.inputTimeoutMs`, read per wait. */
    inputTimeoutMs: () => number = () => 600_000,
    /** The keys under `redis.namespace`. */
    private readonly key: ExecutionKeys = executionKeys(),
  ) {
    this.redis = withExecutionCommands(conns.commands);
    // The queue's connection runs the submit script in the MULTI that also adds the job.
    withExecutionCommands(conns.queue);
    this.channels = new RedisChannels(conns.subscriber);
    this.queue = new Queue<Job>(EXECUTION_QUEUE, { connection: conns.queue, prefix: key.bullPrefix });
    const { lostAfterMs } = config();
    this.channels.always(key.cancelChannel, (id) => {
      this.worker.cancelJob(id);
      this.adopted.get(id)?.abort(cancelled());
    });
    this.inputs = new RedisInput(this.redis, key, this.channels, inputTimeoutMs);
    this.worker = new ExecutionWorker(conns.worker, concurrency, this.redis, key, config, runner, this.inputs, log);
    this.queue.on("error", (err) => log.debug({ err: err.message }, "execution queue error"));
    const orphans = new OrphanSweep(this.redis, key, (id) => this.queue.toKey(id), config, log);
    this.sweeper = setInterval(
      () => void orphans.run().catch((err: Error) => log.debug({ err: err.message }, "orphan sweep failed")),
      lostAfterMs,
    );
    this.sweeper.unref();
    const { leaseMs, sweepMs } = heldTimings(lostAfterMs);
    this.leases = new HeldLeases(this.redis, key, leaseMs, log);
    const held = new HeldSweep(this.redis, key, config, log);
    this.heldSweeper = setInterval(
      () => void held.run().catch((err: Error) => log.debug({ err: err.message }, "held sweep failed")),
      sweepMs,
    );
    this.heldSweeper.unref();
  }

  async submit(s: Submission, fingerprint: string): Promise<{ execution: ExecutionT; replayed: boolean }> {
    const { maxActivePerCaller } = this.config();
    const id = newExecutionId();
    const call = submitCallOf(this.key, this.config(), s, id, fingerprint);
    const job = jobOf(id, s);
    // The record and its job are written together or not at all (see createWithJob).
    const [verdict, earlier] = (await precheck(this.redis, call)) ?? (await createWithJob(this.queue, call, job));
    if (verdict === "reused") throw new ToolnexusError("IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was already used for another call");
    if (verdict === "overloaded") throw overloaded(maxActivePerCaller);
    if (verdict === "replay" && earlier) {
      const execution = await this.get(s.owner, earlier);
      if (execution) return { execution, replayed: true };
    }
    // A replay whose execution expired in between: nothing was created.
    if (verdict !== "created") throw unavailable();
    return { execution: submitted(call), replayed: false };
  }

  // No job: the call already runs here. Its lease (held.ts) says this replica is alive.
  async adopt(a: Adoption): Promise<Adopted> {
    const id = newExecutionId();
    const c = submitCallOf(this.key, this.config(), a, id, "");
    const [verdict] = (await store(this.redis.tnxSubmit(...submitArgs(c)))) as SubmitVerdict;
    if (verdict === "overloaded") throw overloaded(c.max);
    await this.leases.start(id);
    const execution = await this.get(a.owner, id);
    if (!execution) throw unavailable();
    const cancel = new AbortController();
    this.adopted.set(id, cancel);
    let settle = () => {};
    void this.worker.track(new Promise<void>((r) => (settle = r)));
    const job: Job = { id, owner: a.owner, tool: a.tool, body: {}, requestId: a.requestId };
    return {
      execution,
      hooks: {
        signal: cancel.signal,
        onStart: () => undefined,
        onProgress: (p) => void this.worker.progress(id, p),
        onInputRequest: (requests, onAsked) => this.inputs.ask(id, requests, cancel.signal, onAsked),
      },
      finish: async (outcome) => {
        try {
          await this.worker.record(job, outcome);
          await this.leases.release(id);
        } finally {
          this.adopted.delete(id);
          settle();
        }
      },
    };
  }

  input(owner: string, id: string, responses: InputResponses, partial = false): Promise<ExecutionT | undefined> {
    return this.inputs.answer(owner, id, responses, partial);
  }

  async get(owner: string, id: string): Promise<ExecutionT | undefined> {
    return toExecution(await store(this.redis.hgetall(this.key.record(id))), owner);
  }

  list(owner: string, q: { status?: ExecutionStatusT; limit: number; cursor?: string }): Promise<ExecutionPage> {
    return listExecutions(this.redis, this.key, owner, q);
  }

  listAll(q: { active?: boolean; limit: number; cursor?: string }): Promise<OwnedExecutionPage> {
    return listAllExecutions(this.redis, this.key, q);
  }

  ownerOf(id: string): Promise<string | undefined> {
    return ownerOnRedis(this.redis, this.key, id);
  }

  async cancel(owner: string, id: string): Promise<ExecutionT | undefined> {
    const execution = await this.get(owner, id);
    if (!execution || isTerminal(execution.status)) return execution;
    const job: Job = { id, owner, tool: execution.tool, body: {}, requestId: "" };
    // Still queued: no worker has it, so it ends here (the worker skips it when it comes).
    if (execution.status === "queued" && (await this.worker.finish(job, { status: "cancelled", error: toProblem(cancelled(), "") }))) {
      await this.queue.remove(id).catch(() => undefined);
    } else {
      await store(this.redis.publish(this.key.cancelChannel, id));
    }
    // The running replica records `cancelled` once its call settles, which is at once on abort.
    const end = Date.now() + 5_000;
    for (;;) {
      const now = await this.get(owner, id);
      if (!now || isTerminal(now.status) || Date.now() > end) return now;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  watch(owner: string, id: string, after: number, onEvent: (e: ExecutionEvent) => void): Promise<Watch | undefined> {
    return watchExecution(this.redis, this.key, this.channels, owner, id, after, onEvent);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    clearInterval(this.heldSweeper);
    // Waits for the runs of this replica (shutdown aborts them after its grace period) so
    // their outcome is recorded before the connections close.
    const within = () => (this.redis.status === "ready" ? BULL_CLOSE_WITHIN_MS : 0);
    await settledWithin(this.worker.pause(), within());
    this.inputs.close();
    await this.worker.settled();
    this.leases.stop();
    await settledWithin(
      this.worker.close().then(() => this.queue.close()),
      within(),
    );
  }
}

function overloaded(max: number): ToolnexusError {
  return new ToolnexusError("OVERLOADED", `More than ${max} executions queued or running for this caller`, {
    headers: { "retry-after": "1" },
  });
}

function cancelled(): ToolnexusError {
  return new ToolnexusError("CANCELLED", "The execution was cancelled");
}
