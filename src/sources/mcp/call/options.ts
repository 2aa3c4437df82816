import {
  CLIENT_CAPABILITIES_META_KEY,
  DEFAULT_REQUEST_TIMEOUT_MSEC,
  LOG_LEVEL_META_KEY,
  type RequestOptions,
} from "@modelcontextprotocol/client";
import { context, propagation } from "@opentelemetry/api";
import type { ToolContext } from "../../../core/types.js";

/** A 2026 server that sheds load answers input_required with only a requestState: the request is retried at once, this often. */
export const MAX_STATE_ONLY_RETRIES = 10;

// The SDK timer trails the caller's deadline so the caller's own abort (which REST turns into
// 504, and which sends notifications/cancelled) always fires first.
const DEADLINE_SLACK_MS = 1000;

/**
 * The SDK request options of one `tools/call`: the caller's signal (abort ⇒ the SDK sends
 * `notifications/cancelled`) and a request timeout that never cuts the call shorter than
 * `ctx.timeout` (the SDK's 60 s default applies only when the caller gave none). Progress is
 * routed by progress-router.ts, not by the SDK's `onprogress`.
 */
export function callOptions(ctx: ToolContext): RequestOptions {
  return {
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    timeout: heldDeadline(ctx) ?? (ctx.timeout !== undefined ? ctx.timeout + DEADLINE_SLACK_MS : DEFAULT_REQUEST_TIMEOUT_MSEC),
  };
}

/**
 * A request's `_meta`: the progress token, the log level (a 2026 server sends log messages
 * only for a request that names one), the W3C trace context (`traceparent`) of the active span
 * when tracing is on (the OpenTelemetry API injects nothing when it is off), and the client
 * capabilities the request declares.
 */
export function requestMeta(
  progressToken: string | number | undefined,
  logLevel: string | undefined,
  caps: Record<string, unknown> | undefined,
): { _meta?: Record<string, unknown> } {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const m = {
    ...(progressToken !== undefined ? { progressToken } : {}),
    ...(logLevel !== undefined ? { [LOG_LEVEL_META_KEY]: logLevel } : {}),
    ...carrier,
    // Keys given here win over the SDK's own envelope: the input requests are answerable on this path.
    ...(caps ? { [CLIENT_CAPABILITIES_META_KEY]: caps } : {}),
  };
  return Object.keys(m).length ? { _meta: m } : {};
}

// The longest a Node timer waits (a longer one fires at once).
const MAX_TIMER_MS = 2_147_483_647;

/**
 * A call whose caller can be asked mid-call has a deadline that pauses while it waits for the
 * answer (call-signal.ts): the SDK's timer cannot pause, so it is not the deadline; the
 * caller's signal is (its abort sends notifications/cancelled).
 */
function heldDeadline(ctx: ToolContext): number | undefined {
  return ctx.onInputRequest && ctx.signal ? MAX_TIMER_MS : undefined;
}
