import type { ToolnexusError } from "../../core/errors.js";
import type { CallSignal } from "./call-signal.js";

/**
 * How to hear an outside event that ends a call: call `abort` when it happens (at once when it
 * already has) and return what unhooks the listener, or undefined when there is nothing to unhook.
 */
export type AbortListen<S> = (source: S, abort: () => void) => (() => void) | undefined;

/**
 * Binds an outside abort to a call, the one way every transport does it (a client that goes
 * away, an execution's cancel, an MCP transport that closes): when `source` fires, the call is
 * aborted with `reason()`, and the listener is removed when the call is disposed, so a call
 * that ended leaves nothing attached to a long-lived source. `reason` is a function so that no
 * error (and its stack) is built for the calls that are never aborted.
 */
export function bindAbort<S>(call: CallSignal, source: S, listen: AbortListen<S>, reason: () => ToolnexusError): void {
  const off = listen(source, () => call.abort(reason()));
  if (off) call.onDispose(off);
}

/** {@link AbortListen} for an AbortSignal: it fires on the signal's `abort`. */
export const onSignalAbort: AbortListen<AbortSignal> = (signal, abort) => {
  if (signal.aborted) {
    abort();
    return undefined;
  }
  signal.addEventListener("abort", abort, { once: true });
  return () => signal.removeEventListener("abort", abort);
};
