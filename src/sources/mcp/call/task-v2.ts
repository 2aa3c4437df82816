import { setTimeout as delay } from "node:timers/promises";
import { CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { ToolnexusError } from "../../../core/errors.js";
import { asInputRequests } from "../../../core/input/requests.js";
import type { ToolContext, ToolResult } from "../../../core/types.js";
import { callOptions, requestMeta } from "./options.js";
import { failedCall, type CallSite, type McpCall } from "./tool.js";
import { CLIENT_INFO, type McpConnection } from "../connection/connect.js";
import { answerableCapabilities, openRetry, upstreamPending, sealedPending, type Retry } from "./upstream-input.js";
import { mapCallResult } from "./map-result.js";

/** The id of the MCP tasks extension, as servers announce it and clients opt in to it. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
// A server's pollIntervalMs is followed within these bounds (absent: the default).
const MIN_POLL_MS = 10;
const MAX_POLL_MS = 30_000;
const DEFAULT_POLL_MS = 1000;
// tasks/cancel after the caller left: sent on its own deadline, never the caller's (already aborted).
const CANCEL_TIMEOUT_MS = 5000;

type Json = Record<string, unknown>;

/**
 * One call of a tool of a 2026-07-28 server that serves the tasks extension
 * (`io.modelcontextprotocol/tasks`). The request opts in to the extension (with the input
 * capabilities a caller can answer), and the server decides: a direct answer (a result, or
 * its input requests) is taken as a plain call's; a task is followed by `tasks/get` at its
 * `pollIntervalMs`, each new status message a progress event; it is cancelled upstream
 * (`tasks/cancel`) when the caller goes away; its inline result is mapped like a plain call's.
 * A task that turns `input_required` ends the call with a REST pending whose sealed id names
 * the task: the answer (`ctx.answer`) is delivered by `tasks/update`, and the task followed on.
 * Sent on the session's raw path: the SDK client cannot read a `CreateTaskResult`.
 */
export const callTaskV2: McpCall = async (conn, site, tool, args, ctx) => {
  ctx.signal?.throwIfAborted();
  // Opened before anything reaches the upstream: a forged or late answer stops here.
  const retry = openRetry(site.input, site.server, tool, ctx);
  if (retry && "output" in retry) return retry;
  // The server's log messages reach the caller that asked for them (log-router.ts).
  const run = () => follow(conn, site, tool, args, ctx, retry);
  return ctx.onLog ? conn.logs.run(ctx.onLog, run) : run();
};

/** The call proper: its request, then the task it may have become, to the end or to an input request. */
async function follow(
  conn: McpConnection,
  site: CallSite,
  tool: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
  retry: Retry | undefined,
): Promise<ToolResult> {
  const where = `MCP server "${site.server}"`;
  const timeout = callOptions(ctx).timeout ?? CANCEL_TIMEOUT_MS;
  const caps = { ...answerableCapabilities(ctx), extensions: { [TASKS_EXTENSION]: {} } };
  const progress = ctx.onProgress ? conn.progress.open(ctx.onProgress) : undefined;
  // `own`: a request on its own deadline, not the caller's signal (tasks/cancel after the caller left).
  const send = (method: string, params: Json, own = false) => {
    // Progress and log messages are asked for on the call itself (a 2026 server logs only for a request that names a level).
    const call = method === "tools/call";
    const { _meta } = requestMeta(call ? progress?.token : undefined, call && ctx.onLog ? "debug" : undefined, caps);
    const envelope = { [PROTOCOL_VERSION_META_KEY]: conn.protocolVersion, [CLIENT_INFO_META_KEY]: CLIENT_INFO, ..._meta };
    const signal = own ? undefined : ctx.signal;
    return conn.raw.request(
      method,
      { ...params, _meta: envelope },
      { ...(signal ? { signal } : {}), timeoutMs: own ? CANCEL_TIMEOUT_MS : timeout },
    );
  };
  let taskId: string | undefined = retry?.taskId;
  const cancelUpstream = () => {
    if (taskId !== undefined) void send("tasks/cancel", { taskId }, true).catch(() => {});
  };
  ctx.signal?.addEventListener("abort", cancelUpstream, { once: true });
  try {
    let pollMs = DEFAULT_POLL_MS;
    if (taskId !== undefined) {
      await send("tasks/update", { taskId, inputResponses: retry?.inputResponses ?? {} });
      // The answer was just delivered: look at once, then at the server's pace.
      pollMs = 0;
    } else {
      const created = await send("tools/call", {
        name: tool,
        arguments: args,
        ...(retry?.inputResponses ? { inputResponses: retry.inputResponses } : {}),
        ...(retry?.requestState !== undefined ? { requestState: retry.requestState } : {}),
      });
      // The server decides: it may answer at once (a result, or its own input request).
      if (created.resultType !== "task") {
        const direct = created as Parameters<typeof mapCallResult>[0];
        return upstreamPending(site.input, site.server, tool, ctx, created, retry?.round ?? 1) ?? mapCallResult(direct, site.server, tool);
      }
      if (typeof created.taskId !== "string") throw new SdkError(SdkErrorCode.InvalidResult, "a task without a taskId");
      taskId = created.taskId;
      pollMs = pollInterval(created.pollIntervalMs);
    }
    for (let step = 0, last = ""; ;) {
      await delay(pollMs, undefined, ctx.signal ? { signal: ctx.signal } : {});
      const task = await send("tasks/get", { taskId });
      pollMs = pollInterval(task.pollIntervalMs);
      const status = String(task.status);
      const message = typeof task.statusMessage === "string" ? task.statusMessage : status;
      if (status === "working") {
        if (`${status}:${message}` !== last) ctx.onProgress?.({ progress: ++step, message });
        last = `${status}:${message}`;
        continue;
      }
      if (status === "completed") return mapCallResult(task.result as Parameters<typeof mapCallResult>[0], site.server, tool);
      if (status === "input_required") {
        const requests = asInputRequests(task.inputRequests);
        if (!requests) throw new SdkError(SdkErrorCode.InvalidResult, "an input_required task without inputRequests");
        return sealedPending(site.input, site.server, tool, ctx, requests, retry?.round ?? 1, { taskId });
      }
      if (status === "cancelled") throw new ToolnexusError("UPSTREAM_UNAVAILABLE", `${where} cancelled the task of "${tool}"`);
      if (status === "failed") {
        const error = (task.error ?? {}) as { message?: unknown };
        // As a JSON-RPC error from a plain call: an isError result the model can act on.
        return {
          output: site.scrub(`${where}: the task of "${tool}" failed: ${String(error.message ?? "no reason given")}`),
          isError: true,
        };
      }
      throw new SdkError(SdkErrorCode.InvalidResult, `a task with status "${status}"`);
    }
  } catch (err) {
    // The caller's own abort decides the answer (the task was cancelled upstream above).
    if (ctx.signal?.aborted) throw ctx.signal.reason;
    if (err instanceof ToolnexusError) throw err;
    return failedCall(err, site, conn, tool);
  } finally {
    progress?.close();
    ctx.signal?.removeEventListener("abort", cancelUpstream);
  }
}

function pollInterval(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? Math.min(Math.max(v, MIN_POLL_MS), MAX_POLL_MS) : DEFAULT_POLL_MS;
}
