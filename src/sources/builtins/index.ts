import { DisabledSource, type Source } from "../../core/source.js";
import type { LoadedConfig } from "../../config/load.js";
import { BuiltinSource } from "./builtin-source.js";
import { builtinsEnabled, builtinsOptions, exposedBuiltins } from "./options.js";
import { COMMAND_AND_WRITE_BUILTINS, CONTRACT_BUILTIN_NAMES } from "./registry.js";

export { BuiltinSource } from "./builtin-source.js";
export { builtinsEnabled, builtinsOptions, DEFAULT_LIMITS, type BuiltinsOptions } from "./options.js";
export { BUILTIN_FACTORIES, COMMAND_AND_WRITE_BUILTINS, CONTRACT_BUILTIN_NAMES } from "./registry.js";
export type { BuiltinEnv, BuiltinFactory, BuiltinLimits } from "./env.js";

/**
 * The `builtins:` section as sources: none when the key is absent, a `disabled` entry when it
 * is present but off (so status says how to turn it on), else one BuiltinSource.
 */
export function builtinSources(loaded: LoadedConfig): Source[] {
  const cfg = loaded.config.builtins;
  if (cfg === undefined) return [];
  if (!builtinsEnabled(cfg)) {
    return [new DisabledSource("builtin", "builtins", "off: set builtins: true or builtins.enabled: true to turn the built-in tools on")];
  }
  return [new BuiltinSource(builtinsOptions(loaded))];
}

/** The built-ins that run commands or change files which this config exposes (for the no-auth check of `serve`). */
export function exposedCommandBuiltins(config: LoadedConfig["config"]): string[] {
  return exposedBuiltins(config, COMMAND_AND_WRITE_BUILTINS, CONTRACT_BUILTIN_NAMES);
}
