import type { FastifyReply } from "fastify";
import { ToolnexusError } from "../../core/errors.js";
import type { CallSignal } from "./call-signal.js";

/**
 * Aborts `call` with CLIENT_CLOSED when the client goes away before the response ended.
 * Read from `reply.raw` "close" without `writableEnded`: `request.signal` and `request.raw`
 * "close" also fire once a POST body has been read (DESIGN §5).
 */
export function abortOnDisconnect(reply: FastifyReply, call: CallSignal): void {
  const onClose = () => {
    if (!reply.raw.writableEnded) call.abort(new ToolnexusError("CLIENT_CLOSED", "The client closed the connection"));
  };
  // The client may have left while the call was being checked: "close" already fired then.
  if (reply.raw.destroyed) return onClose();
  // `on`, not `once`: dispose always runs and removes it, and `once` allocates a wrapper per call.
  reply.raw.on("close", onClose);
  call.onDispose(() => reply.raw.off("close", onClose));
}
