import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { ConfigError, type ConfigIssue } from "./config-error.js";
import { expandEnv } from "./expand-env.js";
import { resolvePaths } from "./resolve-paths.js";
import { semanticIssues } from "./semantic-checks.js";
import { bundleGrantIssues, expandBundleGrants } from "./bundle-grants.js";
import type { ToolnexusConfig } from "./schema/index.js";
import { schemaIssues } from "./validate.js";

/** A usable config: validated, defaults applied, paths absolute. */
export interface LoadedConfig {
  config: ToolnexusConfig;
  /** The file it came from, when it came from one. */
  file?: string;
  /** Directory relative paths were resolved against. */
  baseDir: string;
  /** Values expanded from the environment: redact them wherever text leaves the process. */
  secrets: string[];
}

const CANDIDATES = ["toolnexus.yaml", "toolnexus.yml", "toolnexus.json", "mcp.json"];

/** The config path from `--config`, else `TOOLNEXUS_CONFIG`, else undefined. */
export function configPathFrom(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return explicit ?? (env.TOOLNEXUS_CONFIG || undefined);
}

/** Reads, expands, validates and resolves a config file (or the config inside a directory). */
export async function loadConfig(pathOrDir: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadedConfig> {
  const file = await findConfigFile(path.resolve(pathOrDir));
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new ConfigError([
      { pointer: "", message: `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` },
    ]);
  }
  let raw: unknown;
  try {
    // YAML 1.2 is a superset of JSON: one parser serves both.
    raw = parseYaml(text, { prettyErrors: false }) ?? {};
  } catch (err) {
    throw new ConfigError([{ pointer: "", message: `is not valid YAML or JSON: ${(err as Error).message}` }], file);
  }
  return normalizeConfig(raw, { baseDir: path.dirname(file), file, env });
}

/** Validates an already-parsed config object (library use, or after parsing a file). */
export async function normalizeConfig(
  raw: unknown,
  opts: { baseDir?: string; file?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<LoadedConfig> {
  const baseDir = path.resolve(opts.baseDir ?? process.cwd());
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ConfigError([{ pointer: "", message: "must be an object" }], opts.file);
  }
  const issues: ConfigIssue[] = [];
  const secrets = new Set<string>();
  const config = expandEnv(structuredClone(raw), opts.env ?? process.env, issues, secrets) as ToolnexusConfig;
  // A value left empty by a missing variable would also fail its schema: one message is enough.
  const unset = new Set(issues.map((i) => i.pointer));
  issues.push(...schemaIssues(config).filter((i) => !unset.has(i.pointer)));
  if (issues.length === 0) issues.push(...semanticIssues(config), ...bundleGrantIssues(config), ...(await resolvePaths(config, baseDir)));
  if (issues.length > 0) throw new ConfigError(issues, opts.file);
  expandBundleGrants(config);
  return { config, baseDir, secrets: [...secrets], ...(opts.file ? { file: opts.file } : {}) };
}

async function findConfigFile(p: string): Promise<string> {
  const st = await stat(p).catch(() => undefined);
  if (!st) throw new ConfigError([{ pointer: "", message: `${p} not found` }]);
  if (!st.isDirectory()) return p;
  for (const name of CANDIDATES) {
    const candidate = path.join(p, name);
    if (
      await stat(candidate).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      return candidate;
  }
  throw new ConfigError([{ pointer: "", message: `${p} holds none of ${CANDIDATES.join(", ")}` }]);
}
