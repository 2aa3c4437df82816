import type { CallPipeline } from "../calls/call-pipeline.js";
import type { Promotion } from "../calls/promotable-call.js";
import type { CatalogViews } from "../catalog/view.js";
import type { ExecutionStore } from "../executions/engine/store.js";
import type { ServiceState } from "../service/service-state.js";
import type { McpCatalog } from "./catalog-server.js";
import type { McpEvents } from "./events.js";
import { ResourceSubscriptions } from "./surface/subscriptions.js";
import type { McpHttp } from "./transport/http-handler.js";

/** What a transport (`/mcp`, `toolnexus mcp`) needs of the catalog as an MCP server. */
export interface McpConnector {
  /** The catalog: a fresh SDK Server per request or connection, and cancellation. */
  catalog(): Promise<McpCatalog>;
  /** `/mcp`'s handler of both eras. */
  http(): Promise<McpHttp>;
  /** The change events `subscriptions/listen` streams hear (both eras' transports share it). */
  readonly events: McpEvents;
  /** Resource subscriptions on this replica (one upstream subscription per URI), and list-change events. */
  readonly subscriptions: ResourceSubscriptions;
  /** Closes the handler's open exchanges and listen streams, and the event bus. */
  close(): Promise<void>;
}

/**
 * The catalog as an MCP server, built on its first request. McpCatalog imports the MCP
 * SDK's server and its schemas (~150 ms of CPU and ~17 MB at start-up): a service nobody
 * speaks MCP to never loads them. The catalog holds nothing before a request, so one built
 * late is the same catalog. A catalog change is announced on `events` from the start, so a
 * replica that never served MCP still tells the others (over Redis) about its reloads.
 */
export function lazyCatalog(
  state: ServiceState,
  views: CatalogViews,
  pipeline: CallPipeline,
  scrub: (s: string) => string,
  events: McpEvents,
  onerror: (err: Error) => void,
  executions?: ExecutionStore,
  promotion?: Promotion,
): McpConnector {
  let catalog: Promise<McpCatalog> | undefined;
  let http: Promise<McpHttp> | undefined;
  // A failed import is not kept: the next request tries again.
  const retry = (reset: () => void) => (err: unknown) => {
    reset();
    throw err;
  };
  // Upstream subscription failures are the sources' to log; what reaches here is an unexpected one.
  const subscriptions = new ResourceSubscriptions(state, events, { warn: (o, m) => onerror(new Error(`${m ?? ""} ${JSON.stringify(o)}`)) });
  const connector: McpConnector = {
    events,
    subscriptions,
    catalog() {
      return (catalog ??= Promise.all([
        import("./catalog-server.js"),
        import("./tasks/tasks.js"),
        import("./input/legacy-relay.js"),
        import("./input/held-retry.js"),
      ]).then(
        ([{ McpCatalog }, { McpTasks }, { LegacyRelay }, { HeldRetry }]) => {
          const inputTimeoutMs = () => state.loaded.config.server.inputTimeoutMs;
          // Answers to an upstream's mid-call questions travel through executions (both eras).
          const held = executions && promotion ? ([state.sealer, executions, promotion, inputTimeoutMs] as const) : undefined;
          return new McpCatalog(
            state,
            views,
            pipeline,
            scrub,
            executions && new McpTasks(state, pipeline, executions),
            held && new LegacyRelay(...held),
            held && new HeldRetry(...held),
          );
        },
        retry(() => (catalog = undefined)),
      ));
    },
    http() {
      return (http ??= Promise.all([connector.catalog(), import("./transport/http-handler.js")]).then(
        ([c, { mcpHttp }]) => mcpHttp(c, events, onerror, subscriptions),
        retry(() => (http = undefined)),
      ));
    },
    async close() {
      const h = await http?.catch(() => undefined);
      await h?.close();
      events.close();
    },
  };
  state.onCatalogChange(() => events.publish({ kind: "tools_list_changed" }));
  return connector;
}
