import { randomUUID } from "node:crypto";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { FastifyBaseLogger } from "fastify";
import { ANONYMOUS } from "../auth/index.js";
import type { McpConnector } from "./lazy-catalog.js";

/** What `toolnexus mcp` needs of a built server (build-server.ts's ToolnexusServer is one). */
export interface StdioHost {
  log: FastifyBaseLogger;
  toolnexus: {
    /** Settles when the sources are loaded. */
    ready: Promise<void>;
    mcp: McpConnector;
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
  const server = await app.toolnexus.mcp.connect({ caller: ANONYMOUS, log: app.log, requestId: () => randomUUID(), transport: "stdio" }, new StdioServerTransport());
  server.onerror = (err) => app.log.debug({ err: err.message }, "mcp protocol error");

  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (why: string) => {
      if (stopping) return;
      stopping = true;
      app.log.info({ why }, "shutting down");
      // The transport's close aborts calls still running (CLIENT_CLOSED); shutdown then drains.
      void server.close().finally(() => void app.toolnexus.shutdown().finally(resolve));
    };
    process.stdin.once("end", () => stop("stdin closed"));
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
}
