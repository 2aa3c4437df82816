import type { Source } from "../core/source.js";
import type { LoadedConfig } from "../config/load.js";
import { mcpSources } from "./mcp/index.js";
import { httpSources } from "./http/index.js";
import { openapiSources } from "./openapi/index.js";
import { a2aSources } from "./a2a/index.js";
import { builtinSources } from "./builtins/index.js";
import { pluginSources } from "./plugins/index.js";
import { skillSources } from "./skills/index.js";

/** Builds the Source instances for one config section. */
export type SourceFactory = (loaded: LoadedConfig) => Source[];

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
