import path from "node:path";
import type { Source } from "../../core/source.js";
import type { LoadedConfig } from "../../config/load.js";
import { PluginSource } from "./plugin-source.js";

/** One source per plugin module file, named by its path relative to the config. */
export function pluginSources({ config, baseDir }: LoadedConfig): Source[] {
  return (config.plugins ?? []).map((file) => new PluginSource(path.relative(baseDir, file) || file, file));
}
