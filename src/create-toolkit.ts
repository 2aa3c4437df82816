import { loadConfig, normalizeConfig, type LoadedConfig } from "./config/load.js";
import { passthroughSources } from "./config/upstream-auth.js";
import type { AuditConfig, ExecutionsConfig, PinningConfig, ToolnexusConfig, ServerConfig } from "./config/schema/index.js";
import { Toolkit } from "./core/toolkit.js";
import type { Logger, Tool } from "./core/types.js";
import { SOURCE_FACTORIES } from "./sources/index.js";

/** A config object as a library user writes it: every section optional. */
export type ToolnexusConfigInput = Omit<Partial<ToolnexusConfig>, "server" | "executions" | "audit" | "pinning"> & {
  server?: Partial<ServerConfig>;
  executions?: Partial<ExecutionsConfig>;
  audit?: Partial<AuditConfig>;
  pinning?: Partial<PinningConfig>;
};

/** Options beside the config. */
export interface CreateToolkitOptions {
  /** Your own tools, added as `native`/`custom` (they shadow builtins of the same name). */
  tools?: Tool[];
  logger?: Logger;
  /** Where relative paths in an object config resolve; default the working directory. */
  baseDir?: string;
  /** A running toolkit being replaced: its unchanged sources are kept rather than restarted. */
  reuse?: Toolkit;
}

/**
 * Builds every configured source and returns one Toolkit. `config` is a path (file or
 * directory), a parsed config object, or an already loaded config.
 */
export async function createToolkit(
  config: string | ToolnexusConfigInput | LoadedConfig = {},
  opts: CreateToolkitOptions = {},
): Promise<Toolkit> {
  const loaded = await toLoadedConfig(config, opts.baseDir);
  const passthrough = passthroughSources(loaded.config);
  if (passthrough.length > 0) {
    opts.logger?.warn(
      { sources: passthrough },
      "these sources send the caller's own token upstream (forwardAuth / upstreamAuth passthrough), which the MCP authorization spec forbids: prefer upstreamAuth: { mode: exchange }",
    );
  }
  const sources = await Promise.all(SOURCE_FACTORIES.map((make) => make(loaded)));
  return Toolkit.create({
    sources: sources.flat(),
    tools: opts.tools ?? [],
    disableTools: loaded.config.disableTools ?? [],
    ...(loaded.config.server.startupQuietMs !== undefined ? { startupQuietMs: loaded.config.server.startupQuietMs } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.reuse ? { reuse: opts.reuse } : {}),
  });
}

/** Loads a config given as a path, an object or an already loaded config. */
export function toLoadedConfig(config: string | ToolnexusConfigInput | LoadedConfig, baseDir?: string): Promise<LoadedConfig> {
  if (typeof config === "string") return loadConfig(config);
  if (isLoaded(config)) return Promise.resolve(config);
  return normalizeConfig(config, baseDir ? { baseDir } : {});
}

function isLoaded(c: unknown): c is LoadedConfig {
  return typeof c === "object" && c !== null && "config" in c && "baseDir" in c && "secrets" in c;
}
