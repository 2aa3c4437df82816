import type { LoadedConfig } from "../../../config/load.js";
import { CONTRACT_BUILTIN_NAMES, PROCESS_BUILTINS } from "../names.js";
import { builtinsOptions, exposedBuiltins } from "../options.js";
import { ProtectionError, resolveProtection } from "./protection.js";

/**
 * The start-up check of `serve` for the shell built-ins' protection: why the service must not
 * start (the config requires a sandbox or a user switch this machine cannot give), or
 * undefined. Kept apart from the tools' modules so the check loads none of them.
 */
export async function protectionRefusal(loaded: LoadedConfig, searchPath?: string): Promise<string | undefined> {
  if (exposedBuiltins(loaded.config, PROCESS_BUILTINS, CONTRACT_BUILTIN_NAMES).length === 0) return undefined;
  const opts = builtinsOptions(loaded);
  try {
    await resolveProtection({
      sandbox: opts.sandbox ?? { mode: "auto", network: true },
      ...(opts.runAs !== undefined ? { runAs: opts.runAs } : {}),
      hide: opts.hide ?? [],
      ...(searchPath !== undefined ? { searchPath } : {}),
    });
    return undefined;
  } catch (err) {
    if (err instanceof ProtectionError) return `refusing to start: ${err.message}`;
    throw err;
  }
}
