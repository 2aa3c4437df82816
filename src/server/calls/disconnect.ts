import type { ServerResponse } from "node:http";
import type { FastifyReply } from "fastify";
import { ToolnexusError } from "../../core/errors.js";
import type { AbortListen } from "./bind-abort.js";
import type { CallSignal } from "./call-signal.js";

const clientClosed = () => new ToolnexusError("CLIENT_CLOSED", "The client closed the connection");

/**
 * Fires when the response closes before it ended. Read from the response's "close" without
 * `writableEnded`: `request.signal` and `request.raw` "close" also fire once a POST body has
 * been read. `on`, not `once`: the call's dispose always removes it, and `once` allocates a
 * wrapper per call.
 */
export const onResponseGone: AbortListen<ServerResponse> = (res, abort) => {
  const onClose = () => {
    if (!res.writableEnded) abort();
  };
  // The client may have left while the call was being checked: "close" already fired then.
  if (res.destroyed) {
    onClose();
    return undefined;
  }
  res.on("close", onClose);
  return () => res.off("close", onClose);
};

/**
 * Aborts `call` with CLIENT_CLOSED when the client goes away before the response ended. The
 * listener is not removed when the call ends, as bind-abort.ts does for long-lived sources:
 * a response is one request's, and its "close" comes once, right after it ended, when the
 * listener finds it ended and does nothing. Removing it cost every call ~0.7 k instructions
 * (bench/history/2026-12-07-execute-path.md).
 */
export function abortOnDisconnect(reply: FastifyReply, call: CallSignal): void {
  onResponseGone(reply.raw, () => call.abort(clientClosed()));
}
