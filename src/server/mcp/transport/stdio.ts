import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { Server, ServerEvent, Transport } from "@modelcontextprotocol/server";
import { ANONYMOUS } from "../../auth/index.js";
import type { McpConnector } from "../lazy-catalog.js";
import { unwrapCallTool } from "../discovery.js";
import { SessionSubscriptions } from "../surface/subscriptions.js";
import { StdioListens, type ListenRefusal } from "../surface/stdio-listens.js";

/** What `toolnexus mcp` needs of a built server (build-server.ts's ToolnexusServer is one). */
export interface StdioHost {
  log: FastifyBaseLogger;
  toolnexus: {
    /** Settles when the sources are loaded. */
    ready: Promise<void>;
    mcp: Pick<McpConnector, "catalog" | "events" | "subscriptions">;
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
  const { events, subscriptions } = app.toolnexus.mcp;
  const resources = new SessionSubscriptions(subscriptions);
  const listens = new StdioListens(() => catalog.surface, subscriptions, ANONYMOUS);
  const session = {
    resources,
    caller: ANONYMOUS,
    log: app.log,
    requestId: () => randomUUID(),
    transport: "stdio" as const,
    // `server.mcp.discovery`, as the config in service says now.
    get discovery() {
      return catalog.mcpDiscovery();
    },
  };
  const onerror = (err: Error) => app.log.debug({ err: err.message }, "mcp protocol error");
  // Both eras: a 2025 initialize, or 2026-07-28 server/discover then per-request envelopes.
  // The Server that serves the connection (the last one made: a 2026 discover probe may come first).
  let current: Server | undefined;
  const unlisten = events.subscribe((event) => {
    if (current) void announce(current, event, (uri) => resources.has(uri) || listens.has(uri)).catch(onerror);
  });
  const handle = serve(
    () => {
      const server = catalog.server(session);
      server.onerror = onerror;
      current = server;
      return server;
    },
    {
      legacy: "serve",
      transport: cancelling(
        new StdioServerTransport(),
        (params) => catalog.cancel(session, params),
        // call_tool becomes the call of the tool it names (discovery.ts), as on /mcp.
        (m) => (session.discovery ? unwrapCallTool(m, {}).body : m),
        (m) => listens.inbound(m),
      ),
      onerror,
    },
  );

  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (why: string) => {
      if (stopping) return;
      stopping = true;
      app.log.info({ why }, "shutting down");
      // The transport's close aborts calls still running (CLIENT_CLOSED); shutdown then drains.
      unlisten();
      resources.clear();
      listens.clear();
      void handle.close().finally(() => void app.toolnexus.shutdown().finally(resolve));
    };
    process.stdin.once("end", () => stop("stdin closed"));
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
}

/**
 * A change event as the notification a stdio client gets: an update only of a URI the session
 * subscribed to, and resource and prompt list changes (a 2026 client's listen router keeps those
 * its filter asked for).
 */
async function announce(server: Server, event: ServerEvent, subscribed: (uri: string) => boolean): Promise<void> {
  if (event.kind === "resource_updated" && subscribed(event.uri)) await server.sendResourceUpdated({ uri: event.uri });
  else if (event.kind === "resources_list_changed") await server.sendResourceListChanged();
  else if (event.kind === "prompts_list_changed") await server.sendPromptListChanged();
}

/**
 * `transport` with `notifications/cancelled` seen first by `cancel`: it aborts the call with
 * CANCELLED (the SDK's own handling, which runs next, would only close its signal). Every
 * incoming message passes through `rewrite` before the SDK sees it; one that `refuse` answers
 * (a listen naming resources the caller may not have) never reaches it.
 */
function cancelling<T extends Transport>(
  transport: T,
  cancel: (params: unknown) => void,
  rewrite: <M>(message: M) => M = (m) => m,
  refuse: (message: { id?: unknown; method?: unknown; params?: unknown }) => ListenRefusal | undefined = () => undefined,
): T {
  let inner: Transport["onmessage"];
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    get: () => inner,
    set: (fn: Transport["onmessage"]) => {
      inner =
        fn &&
        ((message, extra) => {
          if ("method" in message && !("id" in message) && message.method === "notifications/cancelled") cancel(message.params);
          const refusal = refuse(message);
          if (refusal) return void transport.send(refusal as never).catch(() => {});
          fn(rewrite(message), extra);
        });
    },
  });
  return transport;
}
