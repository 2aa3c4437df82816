import type { ToolContext, ToolResult } from "../../../core/types.js";
import { classifyCallError } from "./error.js";
import { callOptions, MAX_STATE_ONLY_RETRIES, requestMeta } from "./options.js";
import type { McpConnection } from "../connection/connect.js";
import type { InputDeps } from "../../../core/input/requests.js";
import { answerableCapabilities, openRetry, upstreamPending } from "./upstream-input.js";
import { mapCallResult } from "./map-result.js";

/** One way of running a `tools/call` on a connection: plain, as a 2025 task, as a 2026 task. */
export type McpCall = (
  conn: McpConnection,
  site: CallSite,
  tool: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
) => Promise<ToolResult>;

/** What a call needs to know about the source it runs in. */
export interface CallSite {
  server: string;
  /** True once the source has seen `conn` drop (the transport closed during the call). */
  isLost(conn: McpConnection): boolean;
  /** Tells the source its session is unusable, so it reconnects. */
  lose(conn: McpConnection, why: string): void;
  scrub(text: string): string;
  /** The sealer and wait of the stateless input path (2026 upstreams). */
  input: InputDeps;
}

/**
 * What a call that failed with `err` answers: an isError result the model can act on, or the
 * error to throw (its message scrubbed). A failure that shows the session unusable hands it
 * back to the source, which reconnects.
 */
export function failedCall(err: unknown, site: CallSite, conn: McpConnection, tool: string): ToolResult {
  const failure = classifyCallError(err, { server: site.server, tool, lost: site.isLost(conn) });
  if (failure.reconnect) site.lose(conn, failure.throw.message);
  if (failure.result) return failure.result;
  failure.throw.message = site.scrub(failure.throw.message);
  throw failure.throw;
}

/**
 * One `tools/call` on `conn`: the caller's signal and deadline are passed on (abort ⇒ the
 * server gets notifications/cancelled), progress is routed to `ctx.onProgress` and log messages
 * to `ctx.onLog`, the result is mapped by map-result.ts and failures by error.ts. On a
 * 2026 session an `input_required` result becomes a REST pending and `ctx.answer` the retry
 * (upstream-input.ts).
 */
export const callTool: McpCall = async (conn, site, tool, args, ctx) => {
  ctx.signal?.throwIfAborted();
  const modern = conn.client.getProtocolEra() === "modern";
  // Opened before anything reaches the upstream: a forged or late answer stops here.
  const retry = modern ? openRetry(site.input, site.server, tool, ctx) : undefined;
  if (retry && "output" in retry) return retry;
  const caps = modern ? answerableCapabilities(ctx) : undefined;
  const progress = ctx.onProgress ? conn.progress.open(ctx.onProgress) : undefined;
  const asking = heldAsk(ctx);
  const held = conn.held.open(asking?.ask);
  try {
    // Every level is asked for: the caller's own side filters by what its client asked for.
    const logLevel = ctx.onLog && modern ? "debug" : undefined;
    let params: Record<string, unknown> = { name: tool, arguments: args, ...requestMeta(progress?.token, logLevel, caps) };
    if (retry?.inputResponses) params.inputResponses = retry.inputResponses;
    if (retry?.requestState !== undefined) params.requestState = retry.requestState;
    const options = { ...callOptions(asking ? { ...ctx, signal: asking.signal } : ctx), allowInputRequired: true };
    for (let attempt = 0; ; attempt++) {
      const request = params;
      const send = () => conn.client.callTool(request as { name: string }, options);
      const result: unknown = await (ctx.onLog ? conn.logs.run(ctx.onLog, send) : send());
      const r = result as { resultType?: unknown; inputRequests?: unknown; requestState?: unknown };
      if (
        r.resultType === "input_required" &&
        r.inputRequests === undefined &&
        typeof r.requestState === "string" &&
        attempt < MAX_STATE_ONLY_RETRIES
      ) {
        params = { name: tool, arguments: args, ...requestMeta(progress?.token, logLevel, caps), requestState: r.requestState };
        continue;
      }
      const pending = upstreamPending(site.input, site.server, tool, ctx, result, retry?.round ?? 1);
      return pending ?? mapCallResult(result as Parameters<typeof mapCallResult>[0], site.server, tool);
    }
  } catch (err) {
    // The caller's own abort (disconnect, deadline, shutdown) decides the answer; the SDK already sent notifications/cancelled.
    if (ctx.signal?.aborted) throw ctx.signal.reason;
    if (asking?.signal.aborted) throw asking.signal.reason;
    return failedCall(err, site, conn, tool);
  } finally {
    held.close();
    progress?.close();
    asking?.dispose();
  }
};

/**
 * The caller's answer route of a held call, when it has one. A wait that failed (no answer
 * within `inputTimeoutMs`) ends the call with that error: the upstream is told to stop
 * (notifications/cancelled) rather than left to go on with no answer.
 *
 * The call's own signal is forwarded by one listener, not combined with `AbortSignal.any`:
 * every REST call carries this route, and a composite signal (weak references kept until a
 * collection) cost a visible share of the MCP hop's CPU and allocations (bench/history/2026-12-notebook.md, "The MCP hop").
 */
function heldAsk(ctx: ToolContext): { ask: NonNullable<ToolContext["onInputRequest"]>; signal: AbortSignal; dispose(): void } | undefined {
  const onInputRequest = ctx.onInputRequest;
  if (!onInputRequest) return undefined;
  const failed = new AbortController();
  const outer = ctx.signal;
  const forward = () => failed.abort(outer?.reason);
  if (outer?.aborted) forward();
  else outer?.addEventListener("abort", forward, { once: true });
  const ask: NonNullable<ToolContext["onInputRequest"]> = async (requests) => {
    try {
      return await onInputRequest.call(ctx, requests);
    } catch (err) {
      failed.abort(err);
      throw err;
    }
  };
  return { ask, signal: failed.signal, dispose: () => outer?.removeEventListener("abort", forward) };
}
