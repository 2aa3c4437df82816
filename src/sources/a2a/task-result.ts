import { Role, TaskState, type Message, type Part, type Task } from "@a2a-js/sdk";
import type { ToolResult } from "../../core/types.js";

/** The metadata every A2A result carries. */
export interface TaskMeta {
  agent: string;
  taskId: string;
  state: string;
  polls: number;
  ms: number;
}

// The SDK decodes both wire versions into the 1.0 enum; results speak the contract's
// (A2A 0.3) state names whichever version the agent used.
const STATE_NAMES: Partial<Record<TaskState, string>> = {
  [TaskState.TASK_STATE_SUBMITTED]: "submitted",
  [TaskState.TASK_STATE_WORKING]: "working",
  [TaskState.TASK_STATE_COMPLETED]: "completed",
  [TaskState.TASK_STATE_FAILED]: "failed",
  [TaskState.TASK_STATE_CANCELED]: "canceled",
  [TaskState.TASK_STATE_REJECTED]: "rejected",
  [TaskState.TASK_STATE_INPUT_REQUIRED]: "input-required",
  [TaskState.TASK_STATE_AUTH_REQUIRED]: "auth-required",
};

/** States after which polling stops: terminal ones, and the interrupted ones that wait on a user turn we cannot give. */
const FINAL_STATES = new Set(["completed", "failed", "canceled", "rejected", "input-required", "auth-required"]);

/** The contract name of a task state (`unknown` for an unspecified or unrecognised one). */
export function stateName(state: TaskState | undefined): string {
  return (state === undefined ? undefined : STATE_NAMES[state]) ?? "unknown";
}

/** True when polling a task in this state can stop. */
export function isFinalState(name: string): boolean {
  return FINAL_STATES.has(name);
}

/** The text parts of `parts`, in order. */
export function textOf(parts: readonly Part[] | undefined): string[] {
  const out: string[] = [];
  for (const p of parts ?? []) if (p.content?.$case === "text") out.push(p.content.value);
  return out;
}

/** A completed task's output: every artifact text part joined by "\n", else the last agent message's text. */
function taskOutput(task: Task): string {
  const texts = (task.artifacts ?? []).flatMap((a) => textOf(a.parts));
  if (texts.length > 0) return texts.join("\n");
  const history = task.history ?? [];
  for (let i = history.length - 1; i >= 0; i--) {
    const msg = history[i];
    if (msg?.role !== Role.ROLE_AGENT) continue;
    const text = textOf(msg.parts).join("\n");
    if (text) return text;
  }
  return "";
}

/** Maps a task that reached a final state. Anything but `completed` is an isError result naming the state. */
export function finalTaskResult(task: Task, meta: TaskMeta): ToolResult {
  if (meta.state === "completed") return { output: taskOutput(task), isError: false, metadata: { ...meta } };
  const detail = textOf(task.status?.message?.parts).join("\n");
  return { output: `A2A task ${meta.taskId} ${meta.state}${detail ? `: ${detail}` : ""}`, isError: true, metadata: { ...meta } };
}

/** Maps a direct Message reply to SendMessage (the agent answered without creating a task). */
export function messageResult(msg: Message, meta: TaskMeta): ToolResult {
  return { output: textOf(msg.parts).join("\n"), isError: false, metadata: { ...meta } };
}

/** The result when the call's own `timeout` ran out before the task finished. */
export function timedOutResult(timeoutMs: number, meta: TaskMeta): ToolResult {
  return { output: `A2A task ${meta.taskId} timed out after ${timeoutMs}ms (state=${meta.state})`, isError: true, metadata: { ...meta } };
}

/** The result when the caller aborted the call (the REST layer answers 499/504 itself). */
export function canceledResult(meta: TaskMeta): ToolResult {
  return { output: `A2A task ${meta.taskId} canceled`, isError: true, metadata: { ...meta } };
}
