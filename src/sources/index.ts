import type { Source } from "../core/source.js";
import type { LoadedConfig } from "../config/load.js";

/** Builds the Source instances for one config section. */
export type SourceFactory = (loaded: LoadedConfig) => Promise<Source[]>;

type Config = LoadedConfig["config"];
const hasKeys = (o: object | undefined) => o !== undefined && Object.keys(o).length > 0;

/**
 * A factory that imports its section's modules only when the config uses that section. Start-up
 * time and idle memory are mostly module loading: the MCP SDK (with zod and jose), the A2A SDK,
 * swagger-parser and turndown cost ~0.3 s and ~40 MB together, and a config that uses none of
 * them should not pay for them.
 */
function lazy(used: (config: Config) => boolean, load: () => Promise<(loaded: LoadedConfig) => Source[]>): SourceFactory {
  return async (loaded) => (used(loaded.config) ? (await load())(loaded) : []);
}

/** Every source factory, one per config section, in the order their status is listed. */
export const SOURCE_FACTORIES: readonly SourceFactory[] = [
  lazy(
    (c) => hasKeys(c.mcpServers) || hasKeys(c.servers) || hasKeys(c.mcp) || c.mcpConfig !== undefined,
    async () => (await import("./mcp/index.js")).mcpSources,
  ),
  lazy(
    (c) => (c.skills?.length ?? 0) > 0,
    async () => (await import("./skills/index.js")).skillSources,
  ),
  lazy(
    (c) => c.builtins !== undefined,
    async () => (await import("./builtins/index.js")).builtinSources,
  ),
  lazy(
    (c) => (c.http?.length ?? 0) > 0,
    async () => (await import("./http/index.js")).httpSources,
  ),
  lazy(
    (c) => (c.openapi?.length ?? 0) > 0,
    async () => (await import("./openapi/index.js")).openapiSources,
  ),
  lazy(
    (c) => hasKeys(c.agents),
    async () => (await import("./a2a/index.js")).a2aSources,
  ),
  lazy(
    (c) => (c.plugins?.length ?? 0) > 0,
    async () => (await import("./plugins/index.js")).pluginSources,
  ),
];
