import type { UpstreamAuth } from "../core/upstream-auth.js";
import type { ConfigIssue } from "./config-error.js";
import type { ToolnexusConfig } from "./schema/index.js";
import type { UpstreamAuthConfig } from "./schema/upstream-auth.js";

/** The part of a remote source's config that says what goes upstream for a caller. */
interface Forwarding {
  forwardAuth?: boolean;
  upstreamAuth?: UpstreamAuthConfig;
}

/** A source's `upstreamAuth`, with `forwardAuth: true` read as passthrough; undefined when neither is set. */
export function upstreamAuthOf(cfg: Forwarding): UpstreamAuth | undefined {
  return cfg.upstreamAuth ?? (cfg.forwardAuth === true ? { mode: "passthrough" } : undefined);
}

/** Every remote source config with its JSON pointer, whatever section it sits in. */
function forwardingSources(config: ToolnexusConfig): [string, Forwarding & { command?: unknown; url?: string }][] {
  const out: [string, Forwarding & { command?: unknown; url?: string }][] = [];
  for (const section of ["mcpServers", "servers", "mcp"] as const)
    for (const [name, s] of Object.entries(config[section] ?? {})) out.push([`/${section}/${escape(name)}`, s]);
  for (const [i, t] of (config.http ?? []).entries()) out.push([`/http/${i}`, t]);
  for (const [i, o] of (config.openapi ?? []).entries()) out.push([`/openapi/${i}`, o]);
  for (const [name, a] of Object.entries(config.agents ?? {})) out.push([`/agents/${escape(name)}`, a]);
  return out;
}

/**
 * What the schema cannot say about `upstreamAuth`: not beside `forwardAuth`; an exchange names
 * exactly one of audience and resource, authenticates with exactly one of a secret and a key,
 * and has a token endpoint (its own, or the one auth.jwt.issuer's metadata names).
 */
export function upstreamAuthIssues(config: ToolnexusConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const [pointer, s] of forwardingSources(config)) {
    const u = s.upstreamAuth;
    if (!u) continue;
    if (s.forwardAuth !== undefined) issues.push({ pointer: `${pointer}/forwardAuth`, message: "cannot be set beside upstreamAuth" });
    if (u.mode !== "exchange") continue;
    const at = `${pointer}/upstreamAuth`;
    if ((u.audience === undefined) === (u.resource === undefined))
      issues.push({ pointer: at, message: "needs exactly one of audience and resource" });
    if ((u.clientSecret === undefined) === (u.privateKeyJwt === undefined))
      issues.push({ pointer: at, message: "needs exactly one of clientSecret and privateKeyJwt" });
    if (u.clientAuthMethod !== undefined && u.clientSecret === undefined)
      issues.push({ pointer: `${at}/clientAuthMethod`, message: "applies to clientSecret only" });
    if (u.tokenEndpoint === undefined && !config.auth?.jwt)
      issues.push({ pointer: at, message: "needs tokenEndpoint, or auth.jwt whose issuer's metadata names one" });
  }
  return issues;
}

/** The pointers of the sources that send the caller's own token upstream, for the warning at load. */
export function passthroughSources(config: ToolnexusConfig): string[] {
  return forwardingSources(config)
    .filter(([, s]) => upstreamAuthOf(s)?.mode === "passthrough")
    .map(([pointer]) => pointer);
}

function escape(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}
