import path from "node:path";
import type { McpServerConfig } from "../../../config/schema/mcp.js";
import { upstreamAuthOf } from "../../../config/upstream-auth.js";
import type { UpstreamAuth } from "../../../core/upstream-auth.js";
import { isModernRevision } from "./negotiation.js";

/** Default bound of each load phase. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** How a server is reached. `remote` = streamable HTTP, falling back to SSE. */
export type McpTransportKind = "stdio" | "remote" | "streamable-http" | "sse";

/** One MCP server, normalized: every alias and default resolved. */
export interface McpServerSpec {
  name: string;
  transport: McpTransportKind;
  enabled: boolean;
  timeout: number;
  /** stdio: executable, its arguments, extra environment, working directory. */
  command?: string;
  args: string[];
  env: Record<string, string>;
  /** stdio: the child gets the service's whole environment under `env`, not only PATH, HOME, LANG, TMPDIR. */
  inheritEnv: boolean;
  /** stdio: the uid/gid the server runs as (`runAs`); the service's own when absent. */
  runAs?: { uid: number; gid: number };
  cwd?: string;
  /** remote: endpoint and headers (already `${VAR}`-expanded by the loader). */
  url?: string;
  headers: Record<string, string>;
  /** Remote only: a JWT caller's bearer token replaces the configured Authorization on tools/call. */
  forwardAuth: boolean;
  /** What `forwardAuth` sends: the caller's own token (passthrough) or one exchanged for the server. */
  upstreamAuth?: UpstreamAuth;
  /** Tool names are `prefix_tool`; `false` ⇒ the server's own names; absent ⇒ the server's name as prefix. */
  prefix?: string | false;
  /** A pinned protocol revision; absent ⇒ the newest both sides speak. */
  protocolVersion?: string;
  /** The per-server tool filter, keyed by the server's own tool names. */
  tools?: Record<string, boolean>;
  /** Values that must never leave the process: header values and child env values. */
  secrets: string[];
}

const TYPE_TO_TRANSPORT: Record<NonNullable<McpServerConfig["type"]>, McpTransportKind> = {
  local: "stdio",
  stdio: "stdio",
  remote: "remote",
  http: "streamable-http",
  "streamable-http": "streamable-http",
  sse: "sse",
};

/**
 * Normalizes one validated server entry. Throws (with a message safe to show) when the entry
 * cannot describe a server: no command for stdio, no url (or a bad one) for remote.
 * `baseDir` anchors a relative `cwd` (entries from an mcp.json file resolve against that file).
 */
export function toServerSpec(name: string, cfg: McpServerConfig, baseDir: string): McpServerSpec {
  const transport = cfg.type
    ? TYPE_TO_TRANSPORT[cfg.type]
    : cfg.url !== undefined
      ? "remote"
      : cfg.command !== undefined
        ? "stdio"
        : undefined;
  if (!transport) throw new Error("has neither command nor url");
  // disabled:true wins; otherwise enabled:false disables.
  const enabled = cfg.disabled === true ? false : cfg.enabled !== false;
  const env = { ...(cfg.env ?? {}), ...(cfg.environment ?? {}) };
  const headers = { ...(cfg.headers ?? {}) };
  const upstreamAuth = upstreamAuthOf(cfg, { source: name, ...(cfg.url !== undefined ? { url: cfg.url } : {}) });
  const spec: McpServerSpec = {
    name,
    transport,
    enabled,
    timeout: cfg.timeout ?? DEFAULT_TIMEOUT_MS,
    args: [],
    env,
    inheritEnv: cfg.inheritEnv === true,
    headers,
    secrets: [...Object.values(headers), ...Object.values(env)].filter((v) => v.length > 0),
    forwardAuth: upstreamAuth !== undefined,
    ...(upstreamAuth ? { upstreamAuth } : {}),
    ...(cfg.tools ? { tools: cfg.tools } : {}),
    ...(cfg.runAs ? { runAs: { uid: cfg.runAs.uid, gid: cfg.runAs.gid } } : {}),
    ...(cfg.protocolVersion ? { protocolVersion: cfg.protocolVersion } : {}),
    ...(cfg.prefix !== undefined ? { prefix: cfg.prefix } : {}),
  };
  if (cfg.protocolVersion && isModernRevision(cfg.protocolVersion) && transport === "sse")
    throw new Error(`pins protocolVersion ${cfg.protocolVersion}, which the SSE transport cannot carry`);
  if (transport === "stdio") {
    const argv = Array.isArray(cfg.command) ? [...cfg.command] : cfg.command !== undefined ? [cfg.command] : [];
    const [command, ...rest] = argv;
    if (!command) throw new Error("is a local server without a command");
    if (spec.forwardAuth) throw new Error("sets forwardAuth or upstreamAuth, which only a remote server can use");
    spec.command = command;
    spec.args = [...rest, ...(cfg.args ?? [])];
    spec.cwd = path.resolve(baseDir, cfg.cwd ?? ".");
  } else {
    if (spec.runAs) throw new Error("sets runAs, which only a local server can use");
    if (cfg.url === undefined) throw new Error("is a remote server without a url");
    let url: URL;
    try {
      url = new URL(cfg.url);
    } catch {
      throw new Error("has a url that is not a valid URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`has a url with unsupported scheme ${url.protocol}`);
    spec.url = url.href;
  }
  return spec;
}
