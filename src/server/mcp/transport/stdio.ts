import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { Transport } from "@modelcontextprotocol/server";
import { ANONYMOUS } from "../../auth/index.js";
import type { McpConnector } from "../lazy-catalog.js";

/** What `toolnexus mcp` needs of a built server (build-server.ts's ToolnexusServer is one). */
export interface StdioHost {
  log: FastifyBaseLogger;
  toolnexus: {
    /** Settles when the sources are loaded. */
    ready: Promise<void>;
    mcp: Pick<McpConnector, "catalog">;
    shutdown(): Promise<void>;
  };
}

/**
 * `toolnexus mcp`: the catalog of a built (not listening) server over stdio, for desktop
 * clients. One process, one client: it is local, so it acts with the whole catalog (the
 * config's `disableTools` still apply; API keys are for the network service). Calls go through
 * the same pipeline as `/mcp` (logged and audited as transport "stdio"). Stdout carries only protocol: the caller must
 * have sent logs to stderr. Resolves when the client goes away (stdin ends) or on SIGTERM/SIGINT,
 * after the service drained.
 */
export async function serveStdio(app: StdioHost): Promise<void> {
  // Answer initialize once the sources are loaded, so the first tools/list sees them all.
  await app.toolnexus.ready;
  const [catalog, { serveStdio: serve, StdioServerTransport }] = await Promise.all([
    app.toolnexus.mcp.catalog(),
    import("@modelcontextprotocol/server/stdio"),
  ]);
  const session = { caller: ANONYMOUS, log: app.log, requestId: () => randomUUID(), transport: "stdio" as const };
  const onerror = (err: Error) => app.log.debug({ err: err.message }, "mcp protocol error");
  // Both eras: a 2025 initialize, or 2026-07-28 server/discover then per-request envelopes.
  const handle = serve(
    () => {
      const server = catalog.server(session);
      server.onerror = onerror;
      return server;
    },
    { legacy: "serve", transport: cancelling(new StdioServerTransport(), (params) => catalog.cancel(session, params)), onerror },
  );

  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (why: string) => {
      if (stopping) return;
      stopping = true;
      app.log.info({ why }, "shutting down");
      // The transport's close aborts calls still running (CLIENT_CLOSED); shutdown then drains.
      void handle.close().finally(() => void app.toolnexus.shutdown().finally(resolve));
    };
    process.stdin.once("end", () => stop("stdin closed"));
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
}

/**
 * `transport` with `notifications/cancelled` seen first by `cancel`: it aborts the call with
 * CANCELLED (the SDK's own handling, which runs next, would only close its signal).
 */
function cancelling<T extends Transport>(transport: T, cancel: (params: unknown) => void): T {
  let inner: Transport["onmessage"];
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    get: () => inner,
    set: (fn: Transport["onmessage"]) => {
      inner =
        fn &&
        ((message, extra) => {
          if ("method" in message && !("id" in message) && message.method === "notifications/cancelled") cancel(message.params);
          fn(message, extra);
        });
    },
  });
  return transport;
}
