import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { parse as parseYaml } from "yaml";
import type { ConfigIssue } from "../../../config/config-error.js";
import { expandEnv } from "../../../config/expand-env.js";
import type { LoadedConfig } from "../../../config/load.js";
import { McpServers, type McpServerConfig } from "../../../config/schema/mcp.js";
import { toServerSpec, type McpServerSpec } from "./server-spec.js";

/** A configured server: its spec, or why the entry cannot be used (shown as `failed`). */
export type ServerEntry = { name: string; spec: McpServerSpec; error?: undefined } | { name: string; error: string; spec?: undefined };

/** Top-level keys of a bare server map that are sibling config sections, not servers. */
const RESERVED_KEYS = new Set(["builtins", "agents", "a2a", "mcpServer", "$schema"]);

// Compiled on first use: only an `mcpConfig` file needs it, and a compile costs start-up time.
let validator: ValidateFunction<Record<string, McpServerConfig>> | undefined;
const serversValidator = () =>
  (validator ??= new Ajv({ allErrors: true, strict: false, code: { optimize: false } }).compile<Record<string, McpServerConfig>>(
    McpServers,
  ));

/**
 * Every MCP server of a loaded config: the inline `mcpServers`, `servers` and `mcp` maps (in
 * that order), then the servers of the `mcpConfig` file. A name seen twice keeps its first
 * definition; the later one is reported as a failed entry so the conflict shows in status.
 */
export function collectServers(loaded: LoadedConfig, env: NodeJS.ProcessEnv = process.env): ServerEntry[] {
  const { config, baseDir } = loaded;
  const entries: ServerEntry[] = [];
  for (const map of [config.mcpServers, config.servers, config.mcp]) {
    for (const [name, cfg] of Object.entries(map ?? {})) entries.push(entry(name, cfg, baseDir));
  }
  if (config.mcpConfig) entries.push(...readMcpConfigFile(config.mcpConfig, env, loaded.secrets));
  const seen = new Set<string>();
  return entries.map((e) => {
    if (!seen.has(e.name)) {
      seen.add(e.name);
      return e;
    }
    return { name: e.name, error: "duplicate MCP server name: the first definition is used" };
  });
}

/**
 * Reads a Claude-desktop style file: `{ mcpServers | servers | mcp: {...} }`, or a bare server
 * map whose reserved sibling keys are ignored. `${VAR}` expands like in the main config; the
 * expanded values join `secrets`. A file that cannot be used becomes one failed entry.
 */
export function readMcpConfigFile(file: string, env: NodeJS.ProcessEnv, secrets: string[]): ServerEntry[] {
  const label = path.basename(file);
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, "utf8"), { prettyErrors: false });
  } catch (err) {
    return [{ name: file, error: `${label} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` }];
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return [{ name: file, error: `${label} must hold an object` }];
  const obj = raw as Record<string, unknown>;
  const wrapped = obj.mcpServers ?? obj.servers ?? obj.mcp;
  const servers = wrapped !== undefined ? wrapped : Object.fromEntries(Object.entries(obj).filter(([k]) => !RESERVED_KEYS.has(k)));

  const issues: ConfigIssue[] = [];
  const found = new Set<string>();
  const expanded = expandEnv(servers, env, issues, found);
  secrets.push(...found);
  if (issues.length > 0) return [{ name: file, error: `${label}: ${issues.map((i) => `${i.pointer} ${i.message}`).join("; ")}` }];
  const validateServers = serversValidator();
  if (!validateServers(expanded)) {
    const detail = (validateServers.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? e.keyword}`).join("; ");
    return [{ name: file, error: `${label} is not a valid MCP server map: ${detail}` }];
  }
  const dir = path.dirname(file);
  return Object.entries(expanded).map(([name, cfg]) => entry(name, cfg, dir));
}

function entry(name: string, cfg: McpServerConfig, baseDir: string): ServerEntry {
  try {
    return { name, spec: toServerSpec(name, cfg, baseDir) };
  } catch (err) {
    return { name, error: `MCP server "${name}" ${(err as Error).message}` };
  }
}
