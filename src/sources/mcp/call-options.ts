import { DEFAULT_REQUEST_TIMEOUT_MSEC, type RequestOptions } from "@modelcontextprotocol/client";
import type { ToolContext } from "../../core/types.js";

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
