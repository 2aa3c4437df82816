import { randomUUID } from "node:crypto";
import { Role, type Message, type Task } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { isToolnexusError } from "../../core/errors.js";
import type { Logger, Progress, ToolResult } from "../../core/types.js";
import { canceledResult, finalTaskResult, isFinalState, messageResult, stateName, timedOutResult, type TaskMeta } from "./task-result.js";
import { taskProgress } from "./task-progress.js";

/** How long a CancelTask sent after the call ended may take: the caller is already gone. */
const CANCEL_TIMEOUT_MS = 5_000;

/** What one call of an agent skill needs beside the client. */
export interface RunTaskOptions {
  /** The agent's card name, reported in metadata. */
  agent: string;
  /** Budget of the whole call (send + polls), ms. */
  timeout: number;
  pollEvery: number;
  signal?: AbortSignal;
  /** Receives the task's state and status message whenever a poll sees them change. */
  onProgress?: (p: Progress) => void;
  logger: Logger;
}

/**
 * Sends `text` to the agent and polls the task until it reaches a final state.
 * The client was created with `polling: true`, so SendMessage returns at once (1.0
 * `returnImmediately`, 0.3 `blocking:false`). Each change of the task's status seen while
 * polling is reported to `onProgress`. A caller abort or the call's own timeout stops
 * polling and cancels the task at the agent. Unreachable agents throw (→ 502); an error the
 * agent answers with becomes an isError result.
 */
export async function runTask(client: Client, text: string, opts: RunTaskOptions): Promise<ToolResult> {
  const started = Date.now();
  let taskId = "";
  let state = "submitted";
  let polls = 0;
  const report = taskProgress(opts.onProgress);
  const meta = (): TaskMeta => ({ agent: opts.agent, taskId, state, polls, ms: Date.now() - started });
  const remaining = () => opts.timeout - (Date.now() - started);
  // One signal bounds every request: a hung SendMessage/GetTask cannot outlive the budget.
  const deadline = AbortSignal.timeout(opts.timeout);
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;

  const stop = async (why: "canceled" | "timeout"): Promise<ToolResult> => {
    const result = why === "canceled" ? canceledResult({ ...meta(), state: "canceled" }) : timedOutResult(opts.timeout, meta());
    await cancelAtAgent(client, taskId, opts.logger);
    return result;
  };

  try {
    const first = await client.sendMessage(sendRequest(text), { signal });
    if (isMessage(first)) {
      taskId = first.taskId;
      state = "completed";
      return messageResult(first, meta());
    }
    let task: Task = first;
    taskId = task.id;
    state = stateName(task.status?.state);
    report(task);
    while (!isFinalState(state)) {
      if (opts.signal?.aborted) return await stop("canceled");
      if (remaining() <= 0) return await stop("timeout");
      await sleep(Math.min(opts.pollEvery, remaining()), opts.signal);
      if (opts.signal?.aborted) return await stop("canceled");
      task = await client.getTask({ tenant: "", id: taskId }, { signal });
      polls++;
      state = stateName(task.status?.state);
      report(task);
    }
    return finalTaskResult(task, meta());
  } catch (err) {
    if (opts.signal?.aborted) return await stop("canceled");
    if (deadline.aborted) return await stop("timeout");
    if (isToolnexusError(err)) throw err;
    return { output: `A2A agent ${opts.agent} answered with an error: ${(err as Error).message}`, isError: true, metadata: { ...meta() } };
  }
}

function sendRequest(text: string) {
  const message: Message = {
    messageId: randomUUID(),
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return { tenant: "", message, configuration: undefined, metadata: undefined };
}

function isMessage(r: Message | Task): r is Message {
  return "messageId" in r && !("status" in r);
}

/** Best effort: the task may already be final, or the agent gone. Never throws. */
async function cancelAtAgent(client: Client, taskId: string, logger: Logger): Promise<void> {
  if (!taskId) return;
  try {
    await client.cancelTask({ tenant: "", id: taskId, metadata: undefined }, { signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS) });
    logger.info({ taskId }, "A2A task canceled at the agent");
  } catch (err) {
    logger.warn({ taskId, err: (err as Error).message }, "A2A task could not be canceled at the agent");
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
