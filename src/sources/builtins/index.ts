import { DisabledSource, type Source } from "../../core/source.js";
import type { LoadedConfig } from "../../config/load.js";
import { BuiltinSource } from "./builtin-source.js";
import { builtinsEnabled, builtinsOptions } from "./options.js";

export { BuiltinSource } from "./builtin-source.js";
export { builtinsEnabled, builtinsOptions, DEFAULT_LIMITS, type BuiltinsOptions } from "./options.js";
export { BUILTIN_FACTORIES } from "./registry.js";
export { COMMAND_AND_WRITE_BUILTINS, CONTRACT_BUILTIN_NAMES, exposedCommandBuiltins } from "./names.js";
export type { BuiltinEnv, BuiltinFactory, BuiltinLimits } from "./common/env.js";

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
