import type { FastifyReply } from "fastify";

/** An open `text/event-stream` response. */
export interface SseStream {
  /** Writes one event; `data` becomes one line of JSON. A no-op once the stream is closed. */
  send(event: string, data: unknown, id?: number | string): void;
  /** Ends the response (after the terminal event). */
  close(): void;
  /** True once the response ended or the client went away. */
  readonly closed: boolean;
  /** Registers `fn` to run once when the client goes away before {@link close} (at once when it already has). */
  onClientClose(fn: () => void): void;
}

/**
 * Takes over `reply` and answers `200 text/event-stream` with its headers flushed at once,
 * so a proxy sees the response start before the first event. A `: ping` comment every
 * `heartbeatMs` keeps idle proxies from cutting the stream. Headers already set on the reply
 * (X-Request-Id) are carried over, since a hijacked reply no longer sends them itself.
 */
export function openSse(reply: FastifyReply, heartbeatMs: number): SseStream {
  const res = reply.raw;
  reply.hijack();
  res.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    // nginx buffers responses unless told not to; a buffered stream shows no progress.
    "x-accel-buffering": "no",
  });
  res.flushHeaders();
  let closed = false;
  const heartbeat = setInterval(() => res.write(": ping\n\n"), heartbeatMs);
  heartbeat.unref();
  const listeners: (() => void)[] = [];
  let gone = false;
  const onClose = () => {
    clearInterval(heartbeat);
    gone = !res.writableEnded;
    closed = true;
    if (gone) for (const fn of listeners) fn();
  };
  // The client may have left while the call was being checked: its "close" is already past.
  if (res.destroyed) onClose();
  else res.once("close", onClose);

  return {
    get closed() {
      return closed;
    },
    send(event, data, id) {
      if (closed) return;
      res.write(`${id === undefined ? "" : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      res.end();
    },
    onClientClose(fn) {
      if (gone) fn();
      else listeners.push(fn);
    },
  };
}
