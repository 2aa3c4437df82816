import type { CallToolResult } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, type TaskEnabledSession } from "@modelcontextprotocol/ext-tasks/client";
import { ToolnexusError } from "../../../core/errors.js";
import type { ToolContext, ToolResult } from "../../../core/types.js";
import { callOptions, requestMeta } from "./options.js";
import { failedCall, type CallSite } from "./tool.js";
import type { McpConnection } from "../connection/connect.js";
import { mapCallResult } from "./map-result.js";

// One tasks session per connection (it hooks the client's fallback handlers once): a
// reconnection is a new connection, and so a new session.
const sessions = new WeakMap<McpConnection, TaskEnabledSession>();

function sessionOf(conn: McpConnection, server: string): TaskEnabledSession {
  let session = sessions.get(conn);
  if (!session) sessions.set(conn, (session = createTaskSessionFromClient(conn.client, { endpointId: server })));
  return session;
}

/**
 * One call of a tool its server runs only as a task (2025-11-25 core tasks, through
 * `@modelcontextprotocol/ext-tasks`): the task is created, followed at the server's
 * `pollInterval` (each status change becomes a progress event, its status message the
 * message), cancelled upstream when the caller goes away, and its result mapped like a
 * plain call's.
 */
export async function callTask(
  conn: McpConnection,
  site: CallSite,
  tool: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<ToolResult> {
  ctx.signal?.throwIfAborted();
  const where = `MCP server "${site.server}"`;
  let cancelUpstream: (() => void) | undefined;
  try {
    // The same deadline and `_meta` (trace context) as a plain call's, on the call and each follow-up.
    const { signal, timeout } = callOptions(ctx);
    const { _meta } = requestMeta(undefined, undefined, undefined);
    const execution = await sessionOf(conn, site.server).callTool(tool, args as never, {
      ...(signal ? { signal } : {}),
      ...(timeout !== undefined ? { requestTimeoutMs: timeout } : {}),
      ...(_meta ? { metadata: _meta as never } : {}),
    });
    cancelUpstream = () => void execution.cancel().catch(() => {});
    ctx.signal?.addEventListener("abort", cancelUpstream, { once: true });
    if (ctx.signal?.aborted) cancelUpstream();
    let step = 0;
    const { outcome } = await execution.settle({
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      onEvent: (e) => {
        if (e.type === "task" && e.task.status !== "completed") {
          ctx.onProgress?.({ progress: ++step, message: e.task.statusMessage ?? e.task.status });
        }
      },
    });
    ctx.signal?.throwIfAborted();
    if (outcome.status === "completed") return mapCallResult(outcome.result as CallToolResult, site.server, tool);
    if (outcome.status === "cancelled") throw new ToolnexusError("UPSTREAM_UNAVAILABLE", `${where} cancelled the task of "${tool}"`);
    // As a JSON-RPC error from a plain call: an isError result the model can act on.
    return { output: site.scrub(`${where}: the task of "${tool}" failed: ${outcome.error.message}`), isError: true };
  } catch (err) {
    // The caller's own abort decides the answer (the task was cancelled upstream above).
    if (ctx.signal?.aborted) throw ctx.signal.reason;
    if (err instanceof ToolnexusError) throw err;
    return failedCall(err, site, conn, tool);
  } finally {
    if (cancelUpstream) ctx.signal?.removeEventListener("abort", cancelUpstream);
  }
}
