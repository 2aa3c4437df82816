import type { InputRequests, InputResponses } from "../../../core/input/requests.js";
import type { Progress, ToolResult } from "../../../core/types.js";
import type { CallEnvelope } from "../../calls/envelope.js";
import type { Problem } from "../../http/problem.js";
import type { ExecutionStatusT, ExecutionT } from "../schemas.js";

/** One event of an execution's stream; `id` increases from 1 so `Last-Event-ID` resumes after it. */
export type ExecutionEvent =
  | { id: number; event: "progress"; data: Progress }
  | { id: number; event: "input_required"; data: { inputRequests: InputRequests } }
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
  /** How the call came: an `/mcp` task is audited and logged as `mcp`; absent, `execution`. */
  transport?: "mcp";
  /** The bundle the call came through (`/bundles/{name}/mcp`), for its audit line. */
  bundle?: string;
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
  /** How the call came (see Submission.transport). */
  transport?: "mcp";
  /** The bundle the call came through (see Submission.bundle). */
  bundle?: string;
}

/** The job that runs submission `s` as execution `id`: the call and who asked, nothing of the store's own. */
export function jobOf(id: string, s: Submission): Job {
  return {
    id,
    owner: s.owner,
    tool: s.tool,
    body: s.body,
    requestId: s.requestId,
    ...(s.callerToken ? { callerToken: s.callerToken } : {}),
    ...(s.transport ? { transport: s.transport } : {}),
    ...(s.bundle ? { bundle: s.bundle } : {}),
  };
}

/** How a run ended. */
export type Outcome = { status: "succeeded"; result: ToolResult } | { status: "failed" | "cancelled"; error: Problem };

/** What a store gives the runner of one job. */
export interface RunHooks {
  /** Aborts when the execution is cancelled, wherever the cancel request arrived. */
  signal: AbortSignal;
  /** The call passed its checks and the tool starts: the execution turns `running`. */
  onStart(): void;
  onProgress(p: Progress): void;
  /**
   * The call asks its caller (it is held meanwhile): the execution turns `input_required` until
   * {@link ExecutionStore.input} answers, wherever that arrives (`onAsked` once it is
   * recorded so: from then on an answer is taken). Rejects with INPUT_TIMEOUT
   * after `server.inputTimeoutMs`, and with the reason when the execution is cancelled.
   */
  onInputRequest(requests: InputRequests, onAsked?: () => void): Promise<InputResponses>;
}

/** A call already running in this process that the store takes over (a synchronous call promoted when it asks mid-call). */
export interface Adoption {
  owner: string;
  tool: string;
  requestId: string;
  /** What is left of the call's deadline; bounds `expiresAt` while it is active. */
  timeoutMs: number;
}

/** An adopted call: its execution (running), the hooks to bind it to, and where its outcome goes. */
export interface Adopted {
  execution: ExecutionT;
  hooks: RunHooks;
  /** Records how the call ended; the store's close waits for it. */
  finish(outcome: Outcome): Promise<void>;
}

/** Runs one job through the call pipeline; never rejects. */
export type Runner = (job: Job, hooks: RunHooks) => Promise<Outcome>;

/** A page of `GET /executions`. */
export interface ExecutionPage {
  executions: ExecutionT[];
  next?: string;
}

/** An execution as an operator sees it: with the caller that owns it. */
export interface OwnedExecution {
  owner: string;
  execution: ExecutionT;
}

/** A page of every owner's executions (the operator console). */
export interface OwnedExecutionPage {
  executions: OwnedExecution[];
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
  /**
   * Takes over a call running in this process as a new `running` execution of `owner`
   * (OVERLOADED past the owner's active limit). Its input requests and cancel work as a
   * submitted one's; the call stays on this replica.
   */
  adopt(a: Adoption): Promise<Adopted>;
  /**
   * Answers the input requests an `input_required` execution waits on, wherever it runs: the
   * execution turns `running` again. EXECUTION_NOT_WAITING when it waits on nothing,
   * INVALID_INPUT_RESPONSES when the keys are not exactly those asked, INPUT_TIMEOUT when its wait ended so; undefined when unknown to this owner.
   * With `partial`, responses to some of the requests are kept and the execution waits on the
   * others (the answer goes to the call once every request has its response).
   */
  input(owner: string, id: string, responses: InputResponses, partial?: boolean): Promise<ExecutionT | undefined>;
  /** Aborts the execution wherever it runs; a terminal one is returned unchanged. */
  cancel(owner: string, id: string): Promise<ExecutionT | undefined>;
  /**
   * Delivers every event after `after`, then live ones, in order, ending with the terminal
   * event. Undefined when the execution is unknown to this owner.
   */
  watch(owner: string, id: string, after: number, onEvent: (e: ExecutionEvent) => void): Promise<Watch | undefined>;
  /**
   * Every owner's executions, newest first, for operators (the console); `active` keeps those
   * not finished. `cursor` is the `next` of the previous page.
   */
  listAll(q: { active?: boolean; limit: number; cursor?: string }): Promise<OwnedExecutionPage>;
  /** The owner of execution `id`, whoever asks: an operator cancels on the owner's behalf. */
  ownerOf(id: string): Promise<string | undefined>;
  /** Stops taking work, waits for the runs of this process to be recorded, and disconnects. */
  close(): Promise<void>;
}
