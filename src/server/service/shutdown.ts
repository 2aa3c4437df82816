import type { FastifyInstance } from "fastify";
import type { ServiceState } from "./service-state.js";

/** What closes when the service does, besides Fastify's own. */
export interface Closers {
  /** The MCP catalog: its open `subscriptions/listen` streams would hold their connections. */
  mcp: { close(): Promise<void> };
  reloader: { stop(): Promise<void> } | undefined;
  /** The first load of the sources. */
  ready: Promise<void>;
  redis: { disconnect(): void } | undefined;
  telemetry: { shutdown(): Promise<void> } | undefined;
  executions: { close: () => Promise<void> };
}

/**
 * The service's end: what app.close() closes and in which order, connections closed while
 * draining, and the shutdown that aborts the calls still running after the grace period.
 */
export function installShutdown(app: FastifyInstance, state: ServiceState, closers: Closers, shutdownGraceMs: number): () => Promise<void> {
  const { mcp, reloader, ready, redis, telemetry, executions } = closers;
  app.addHook("onClose", async () => {
    state.drain();
    // Open subscriptions/listen streams would hold their connections past the close.
    await mcp.close();
    await reloader?.stop();
    // A slow first load (MCP servers still starting) must not outlast the grace period; the
    // load closes its own toolkit when it finishes after this.
    await Promise.race([ready, new Promise((r) => setTimeout(r, shutdownGraceMs).unref())]);
    await Promise.all(state.openToolkits().map((tk) => tk.close()));
    redis?.disconnect();
    await telemetry?.shutdown();
  });
  // Root onClose hooks run last-added first: executions still running keep their sources and
  // Redis until their outcome is recorded (shutdown aborts them after the grace period).
  app.addHook("onClose", executions.close);

  // While draining, each response closes its connection: a keep-alive client would otherwise
  // hold the server open long after its last call finished.
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (state.draining) reply.header("connection", "close");
    done(null, payload);
  });

  return async () => {
    state.drain();
    const grace = setTimeout(() => {
      state.abortInFlight();
      // Aborted calls answer at once; whatever still holds a socket after that is cut.
      setTimeout(() => app.server.closeAllConnections(), 1000).unref();
    }, shutdownGraceMs);
    try {
      await app.close();
    } finally {
      clearTimeout(grace);
    }
  };
}
