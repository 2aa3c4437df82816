import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallPipeline } from "../calls/call-pipeline.js";
import type { CatalogViews } from "../catalog/view.js";
import type { ServiceState } from "../service/service-state.js";
import type { McpCatalog, McpSession } from "./catalog-server.js";

/** What a transport (`/mcp`, `toolnexus mcp`) needs of the catalog: a connection. */
export type McpConnector = Pick<McpCatalog, "connect">;

/**
 * The catalog as an MCP server, built on its first connection. McpCatalog imports the MCP
 * SDK's server and its zod schemas (~150 ms of CPU and ~17 MB at start-up): a service nobody
 * speaks MCP to never loads them. The catalog holds nothing before a connection, so one built
 * late is the same catalog.
 */
export function lazyCatalog(state: ServiceState, views: CatalogViews, pipeline: CallPipeline, scrub: (s: string) => string): McpConnector {
  let catalog: Promise<McpCatalog> | undefined;
  return {
    async connect(session: McpSession, transport: Transport) {
      // A failed import is not kept: the next connection tries again.
      catalog ??= import("./catalog-server.js").then(({ McpCatalog }) => new McpCatalog(state, views, pipeline, scrub), (err: unknown) => {
        catalog = undefined;
        throw err;
      });
      return (await catalog).connect(session, transport);
    },
  };
}
