import type { Source } from "../../core/source.js";
import type { LoadedConfig } from "../../config/load.js";
import { sharedSealer } from "../../core/seal.js";
import { collectServers } from "./config/collect-servers.js";
import { FailedMcpSource } from "./failed-source.js";
import { McpServerSource } from "./mcp-server-source.js";

/** One source per configured MCP server (inline maps and the `mcpConfig` file). */
export function mcpSources(loaded: LoadedConfig): Source[] {
  return collectServers(loaded).map((entry) =>
    entry.spec
      ? new McpServerSource(entry.spec, {
          secrets: loaded.secrets,
          ...(loaded.config.egress ? { egress: loaded.config.egress } : {}),
          input: { sealer: sharedSealer(loaded.config.server.stateSecret), inputTimeoutMs: loaded.config.server.inputTimeoutMs },
        })
      : new FailedMcpSource(entry.name, entry.error),
  );
}

export { McpServerSource, type McpSourceOptions } from "./mcp-server-source.js";
export { collectServers, readMcpConfigFile, type ServerEntry } from "./config/collect-servers.js";
export { toServerSpec, DEFAULT_TIMEOUT_MS, type McpServerSpec, type McpTransportKind } from "./config/server-spec.js";
export { mapCallResult } from "./call/map-result.js";
