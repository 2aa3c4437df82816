import type { ServerResponse } from "node:http";
import type { FastifyReply } from "fastify";
import { ToolnexusError } from "../../core/errors.js";
import { bindAbort, type AbortListen } from "./bind-abort.js";
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

/** Aborts `call` with CLIENT_CLOSED when the client goes away before the response ended. */
export function abortOnDisconnect(reply: FastifyReply, call: CallSignal): void {
  bindAbort(call, reply.raw, onResponseGone, clientClosed);
}
