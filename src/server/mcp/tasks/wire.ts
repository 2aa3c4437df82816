import type { CreateTaskResultV2, DetailedTaskV2, TaskV2 } from "@modelcontextprotocol/ext-tasks/core/v2";
import { ToolnexusError, type ErrorCode } from "../../../core/errors.js";
import type { Problem } from "../../http/problem.js";
import type { ExecutionT } from "../../executions/schemas.js";
import { toCallToolResult, toJsonRpcError, type JsonRpcError } from "../results.js";

/** The id of the MCP tasks extension (SEP-2663), as clients and servers declare it. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/**
 * An execution as an MCP task: the same id, its status in the task vocabulary, `ttlMs` the time
 * from creation until it is no longer kept (its retention), and `pollIntervalMs` what
 * `Retry-After` tells a REST poller.
 */
function taskOf(e: ExecutionT, pollIntervalMs: number): TaskV2 {
  const created = Date.parse(e.createdAt);
  const message = e.progress?.message;
  return {
    taskId: e.id,
    status: statusOf(e),
    ...(message === undefined || statusOf(e) !== "working" ? {} : { statusMessage: message }),
    createdAt: e.createdAt,
    lastUpdatedAt: e.updatedAt,
    ttlMs: Math.max(1, Math.round(Date.parse(e.expiresAt) - created)),
    pollIntervalMs,
  };
}

/** `tools/call`'s answer when the call became a task: the task itself, flat, never a result. */
export function createTaskResult(e: ExecutionT, pollIntervalMs: number): CreateTaskResultV2 {
  return { resultType: "task", ...taskOf(e, pollIntervalMs) };
}

/**
 * `tasks/get`: the task and, inline, what ended it — the tool's result when it completed (an
 * isError result too: the tool ran), or the JSON-RPC error of a protocol-level failure — or
 * the `inputRequests` it waits on while `input_required`.
 */
export function detailedTaskOf(e: ExecutionT, pollIntervalMs: number): DetailedTaskV2 {
  const task = taskOf(e, pollIntervalMs);
  // The inlined result is a tools/call result of this era: it carries its own resultType.
  if (e.status === "succeeded" && e.result)
    return { ...task, status: "completed", result: { ...toCallToolResult(e.result), resultType: "complete" } as never };
  if (e.status === "failed" && e.error) {
    const { code, message, data } = problemError(e.error);
    return { ...task, status: "failed", error: { code, message, ...(data === undefined ? {} : { data: data as never }) } };
  }
  // The call is held until tasks/update answers these (the keys are the gateway's request ids).
  if (e.status === "input_required" && e.inputRequests)
    return { ...task, status: "input_required", inputRequests: e.inputRequests as never };
  return task as DetailedTaskV2;
}

/** The JSON-RPC error a synchronous `tools/call` would have answered for this problem. */
export function problemError(p: Problem): JsonRpcError {
  // The problem's detail was scrubbed when the execution recorded it.
  return toJsonRpcError(new ToolnexusError(p.code as ErrorCode, p.detail), p.requestId ?? "", (s) => s);
}

function statusOf(e: ExecutionT): TaskV2["status"] {
  switch (e.status) {
    case "queued":
    case "running":
      return "working";
    case "succeeded":
      return "completed";
    default:
      return e.status;
  }
}
