import { DisabledSource, type Source } from "../core/source.js";
import type { ToolSource } from "../core/types.js";
import type { LoadedConfig } from "../config/load.js";
import { mcpSources } from "./mcp/index.js";
import { httpSources } from "./http/index.js";
import { openapiSources } from "./openapi/index.js";
import { a2aSources } from "./a2a/index.js";
import { pluginSources } from "./plugins/index.js";
import { skillSources } from "./skills/index.js";

/** Builds the Source instances for one config section. */
export type SourceFactory = (loaded: LoadedConfig) => Source[];

/**
 * For a section whose source is not part of this build yet: accepted by the schema and shown
 * as `disabled` in status, so a config written for a later release still loads.
 */
function notYetAvailable(kind: ToolSource, names: (loaded: LoadedConfig) => string[]): SourceFactory {
  return (loaded) => names(loaded).map((n) => new DisabledSource(kind, n, "this source is not available in this build"));
}

const builtinSources = notYetAvailable("builtin", ({ config }) =>
  config.builtins === true || (typeof config.builtins === "object" && config.builtins.enabled === true) ? ["builtins"] : []);

/** Every source factory, one per config section, in the order their status is listed. */
export const SOURCE_FACTORIES: readonly SourceFactory[] = [
  mcpSources,
  skillSources,
  builtinSources,
  httpSources,
  openapiSources,
  a2aSources,
  pluginSources,
];
