import type { LoadedConfig } from "../../config/load.js";
import { exposedBuiltins } from "./options.js";

// Names only, apart from the tools' modules: the start-up check of `serve` reads these, and it
// must not load every built-in (webfetch's HTML converter…) for a config that has none.

/** The names the contract defines, including those not in this build (for config warnings). */
export const CONTRACT_BUILTIN_NAMES: readonly string[] = [
  "bash",
  "read",
  "write",
  "edit",
  "grep",
  "glob",
  "webfetch",
  "question",
  "apply_patch",
  "todowrite",
];

/** Built-ins that run commands or change files: what an unauthenticated deployment must not expose. */
export const COMMAND_AND_WRITE_BUILTINS: readonly string[] = ["bash", "write", "edit", "apply_patch"];

/** The built-ins that run commands or change files which this config exposes (for the no-auth check of `serve`). */
export function exposedCommandBuiltins(config: LoadedConfig["config"]): string[] {
  return exposedBuiltins(config, COMMAND_AND_WRITE_BUILTINS, CONTRACT_BUILTIN_NAMES);
}

/** Built-ins that start processes: what the sandbox (or `builtins.runAs`) confines. */
export const PROCESS_BUILTINS: readonly string[] = ["bash"];
