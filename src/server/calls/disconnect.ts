import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
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

/** Aborts `call` with CLIENT_CLOSED when the client goes away before the response ended. */
export function abortOnDisconnect(reply: FastifyReply, call: CallSignal): void {
  const res = reply.raw;
  const socket = res.socket;
  // The client may have left while the call was being checked: the connection is gone then.
  if (res.destroyed || !socket || socket.destroyed) {
    if (!res.writableEnded) call.abort(clientClosed());
    return;
  }
  const calls = (socket as Socket & { [CALLS]?: ConnectionCalls })[CALLS] ?? new ConnectionCalls(socket);
  const bound = calls.bind(res, call);
  call.onDispose(() => calls.unbind(bound));
}

const CALLS = Symbol("toolnexus.connectionCalls");

/** One call bound to its connection, with the response it answers; a link of the connection's list. */
interface Bound {
  res: ServerResponse;
  call: CallSignal;
  prev?: Bound;
  next?: Bound;
}

/**
 * The calls in progress on one connection: its one "close" listener aborts those whose
 * response had not ended. A "close" listener per response cost every call an add and a
 * removal on the response's emitter, the removal a `delete` that left the response's listener
 * table a slow dictionary (bench/history/2026-12-06-execute-path.md). A promoted call outlives
 * its 202, which ended: a later close leaves it running, as the response's "close" did.
 */
class ConnectionCalls {
  private head?: Bound;

  constructor(socket: Socket) {
    (socket as Socket & { [CALLS]?: ConnectionCalls })[CALLS] = this;
    socket.once("close", () => this.closed());
  }

  bind(res: ServerResponse, call: CallSignal): Bound {
    const bound: Bound = { res, call, next: this.head };
    if (this.head) this.head.prev = bound;
    this.head = bound;
    return bound;
  }

  unbind(bound: Bound): void {
    if (bound.prev) bound.prev.next = bound.next;
    else if (this.head === bound) this.head = bound.next;
    else return; // unbound already
    if (bound.next) bound.next.prev = bound.prev;
    bound.prev = bound.next = undefined;
  }

  private closed(): void {
    // Collected first: an abort may unbind calls of this list.
    const open: Bound[] = [];
    for (let b = this.head; b; b = b.next) if (!b.res.writableEnded) open.push(b);
    for (const b of open) b.call.abort(clientClosed());
  }
}
