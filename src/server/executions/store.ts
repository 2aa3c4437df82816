import type { Progress, ToolResult } from "../../core/types.js";
import type { CallEnvelope } from "../calls/envelope.js";
import type { Problem } from "../http/problem.js";
import type { ExecutionStatusT, ExecutionT } from "./schemas.js";

/** One event of an execution's stream; `id` increases from 1 so `Last-Event-ID` resumes after it. */
export type ExecutionEvent =
  | { id: number; event: "progress"; data: Progress }
  | { id: number; event: "result"; data: ToolResult }
  | { id: number; event: "error"; data: Problem };

/** A call to run later, as accepted by `POST /tools/{name}/executions`. */
export interface Submission {
  /** The caller id that owns the execution (an API key id, a JWT subject, or "anonymous"). */
  owner: string;
  tool: string;
  body: CallEnvelope;
  requestId: string;
  /** Scoped to the owner; the same key with the same call ⇒ the same execution. */
  idempotencyKey?: string;
  /** How long the call may run (already capped); bounds `expiresAt` while it is active. */
  timeoutMs: number;
  /** The caller's token, sealed (caller-token.ts), for a tool that acts for the caller upstream. */
  callerToken?: string;
}

/** What a store hands its runner: the call and who asked for it. */
export interface Job {
  id: string;
  owner: string;
  tool: string;
  body: CallEnvelope;
  requestId: string;
  /** The caller's token, sealed: Redis holds only this ciphertext, which expires with the token. */
  callerToken?: string;
}

/** How a run ended. */
export type Outcome = { status: "succeeded"; result: ToolResult } | { status: "failed" | "cancelled"; error: Problem };

/** What a store gives the runner of one job. */
interface RunHooks {
  /** Aborts when the execution is cancelled, wherever the cancel request arrived. */
  signal: AbortSignal;
  /** The call passed its checks and the tool starts: the execution turns `running`. */
  onStart(): void;
  onProgress(p: Progress): void;
}

/** Runs one job through the call pipeline; never rejects. */
export type Runner = (job: Job, hooks: RunHooks) => Promise<Outcome>;

/** A page of `GET /executions`. */
export interface ExecutionPage {
  executions: ExecutionT[];
  next?: string;
}

/** A live view of one execution's events, from {@link ExecutionStore.watch}. */
export interface Watch {
  /** The execution when the watch began. */
  execution: ExecutionT;
  /** Stops delivering events. */
  stop(): void;
}

/**
 * Where executions live and how they run: in the process (the default) or
 * on Redis, where any replica answers for any execution. Every read is scoped to the owner:
 * another caller's execution is as absent as an unknown one. Methods reject with
 * STORE_UNAVAILABLE when the store cannot be reached.
 */
export interface ExecutionStore {
  /**
   * Accepts a call and starts it. Rejects with IDEMPOTENCY_KEY_REUSED when the key names
   * another call, OVERLOADED past the owner's active limit. `replayed` is true when the key
   * found an earlier execution (nothing new runs).
   */
  submit(s: Submission, fingerprint: string): Promise<{ execution: ExecutionT; replayed: boolean }>;
  get(owner: string, id: string): Promise<ExecutionT | undefined>;
  /** The owner's executions, newest first. `cursor` is the `next` of the previous page. */
  list(owner: string, q: { status?: ExecutionStatusT; limit: number; cursor?: string }): Promise<ExecutionPage>;
  /** Aborts the execution wherever it runs; a terminal one is returned unchanged. */
  cancel(owner: string, id: string): Promise<ExecutionT | undefined>;
  /**
   * Delivers every event after `after`, then live ones, in order, ending with the terminal
   * event. Undefined when the execution is unknown to this owner.
   */
  watch(owner: string, id: string, after: number, onEvent: (e: ExecutionEvent) => void): Promise<Watch | undefined>;
  /** Stops taking work, waits for the runs of this process to be recorded, and disconnects. */
  close(): Promise<void>;
}
