import path from "node:path";
import type { BuiltinsConfig, EgressConfig } from "../../config/schema/index.js";
import type { LoadedConfig } from "../../config/load.js";
import { silentLogger, type Logger, type Tool } from "../../core/types.js";
import type { BuiltinLimits } from "./common/env.js";
import { serviceFiles, type RunAsSetting, type SandboxSetting } from "./shell/protection.js";

/** The builtins section, resolved: everything the source needs, defaults applied. */
export interface BuiltinsOptions {
  /** Absolute; created at build when missing. */
  workspace: string;
  /** `builtins.tools`: the per-tool switch map. */
  tools?: Record<string, boolean>;
  /** Names of service environment variables bash may see. */
  env: string[];
  /** `builtins.inheritEnv`: bash sees the service's whole environment. */
  inheritEnv?: boolean;
  /** Explicit shell; default /bin/bash when present, else /bin/sh. */
  shell?: string;
  /** `builtins.runAs`: the user bash commands run as, when set (ids, or a name). */
  runAs?: RunAsSetting;
  /** `builtins.sandbox`; absent ⇒ auto with network. */
  sandbox?: SandboxSetting;
  /** The service's own files (config, pin file, audit log) the sandbox hides. */
  hide?: string[];
  limits: BuiltinLimits;
  egress: EgressConfig;
}

/** Defaults of the caps (64 KiB output, 1 MiB files, 20 000 scanned entries). */
export const DEFAULT_LIMITS: BuiltinLimits = {
  outputLimitBytes: 64 * 1024,
  maxFileBytes: 1024 * 1024,
  maxScanFiles: 20_000,
};

/**
 * Whether the builtin source is on. Off by default (the service is reachable over the network):
 * only `builtins: true` or `{ enabled: true }` turns it on, and `disabled: true` always wins.
 */
export function builtinsEnabled(cfg: BuiltinsConfig | undefined): boolean {
  if (typeof cfg === "boolean") return cfg;
  return cfg !== undefined && cfg.enabled === true && cfg.disabled !== true;
}

/** The resolved options of an enabled builtins section. */
export function builtinsOptions({ config, baseDir, file }: LoadedConfig): BuiltinsOptions {
  const cfg = typeof config.builtins === "object" ? config.builtins : {};
  const sandbox = typeof cfg.sandbox === "string" ? { mode: cfg.sandbox } : (cfg.sandbox ?? {});
  const audit = config.audit?.path;
  return {
    // resolve-paths.ts made an object's workspace absolute; `builtins: true` gets the default here.
    workspace: path.resolve(baseDir, cfg.workspace ?? "workspace"),
    ...(cfg.tools ? { tools: cfg.tools } : {}),
    env: cfg.env ?? [],
    ...(cfg.inheritEnv ? { inheritEnv: true } : {}),
    ...(cfg.shell ? { shell: path.resolve(baseDir, cfg.shell) } : {}),
    ...(cfg.runAs ? { runAs: cfg.runAs } : {}),
    sandbox: { mode: sandbox.mode ?? "auto", network: sandbox.network !== false },
    // A config directory under /etc (the container image's /etc/toolnexus) is hidden whole.
    hide: serviceFiles([file, config.pinning.file, audit, audit && `${audit}.1`, baseDir.startsWith("/etc/") ? baseDir : undefined]),
    limits: {
      outputLimitBytes: cfg.outputLimitBytes ?? DEFAULT_LIMITS.outputLimitBytes,
      maxFileBytes: cfg.maxFileBytes ?? DEFAULT_LIMITS.maxFileBytes,
      maxScanFiles: cfg.maxScanFiles ?? DEFAULT_LIMITS.maxScanFiles,
    },
    egress: config.egress ?? {},
  };
}

/**
 * Applies the `builtins.tools` map with the contract's filter semantics: empty ⇒ all; any
 * `true` ⇒ an allowlist of the true names; only `false` ⇒ those names dropped from the all-on
 * baseline. Unknown names are ignored with one warning.
 */
export function selectTools(
  all: readonly Tool[],
  map: Record<string, boolean> | undefined,
  known: readonly string[],
  logger: Logger,
): Tool[] {
  if (!map || Object.keys(map).length === 0) return [...all];
  const unknown = Object.keys(map).filter((n) => !known.includes(n));
  if (unknown.length > 0) logger.warn({ unknown }, "builtins.tools names unknown tools; ignored");
  const allowlist = Object.values(map).some((v) => v);
  return all.filter((t) => (allowlist ? map[t.name] === true : map[t.name] !== false));
}

/**
 * Which of `names` a config exposes (before `disableTools`); empty when the source is off.
 * For the `serve` check that refuses command/write tools without auth.
 */
export function exposedBuiltins(config: LoadedConfig["config"], names: readonly string[], known: readonly string[]): string[] {
  if (!builtinsEnabled(config.builtins)) return [];
  const map = typeof config.builtins === "object" ? config.builtins.tools : undefined;
  const stubs = names.map((name) => ({ name }) as Tool);
  return selectTools(stubs, map, known, silentLogger).map((t) => t.name);
}
