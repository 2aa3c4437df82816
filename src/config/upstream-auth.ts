import { isUserAuth, type UpstreamAuth, type UserAuth } from "../core/upstream-auth.js";
import type { ConfigIssue } from "./config-error.js";
import type { ToolnexusConfig } from "./schema/index.js";
import type { UpstreamAuthConfig } from "./schema/upstream-auth.js";

/** The part of a remote source's config that says what goes upstream for a caller. */
interface Forwarding {
  forwardAuth?: boolean;
  upstreamAuth?: UpstreamAuthConfig;
}

/** Where a source's per-caller credential belongs: its connection name and the upstream's URL. */
export interface UpstreamSite {
  /** The source's own name (an MCP server's, an http tool's, an openapi prefix, an agent's key). */
  source?: string;
  /** The upstream's URL: where user-oauth discovers its authorization server, and its `resource`. */
  url?: string;
}

/**
 * A source's `upstreamAuth`, with `forwardAuth: true` read as passthrough; undefined when
 * neither is set. A per-caller mode gets its connection name (`source`, the configured one
 * first) and, for user-oauth, the upstream's origin as its resource.
 */
export function upstreamAuthOf(cfg: Forwarding, site: UpstreamSite = {}): UpstreamAuth | undefined {
  const u = cfg.upstreamAuth;
  if (u?.mode === "user-secret") return { ...u, source: u.source ?? site.source ?? "default" };
  if (u?.mode === "user-oauth") {
    const resource = site.url === undefined ? "" : resourceOf(site.url);
    return { ...u, source: u.source ?? site.source ?? "default", resource };
  }
  return u ?? (cfg.forwardAuth === true ? { mode: "passthrough" } : undefined);
}

/** The resource identifier of an upstream URL: its origin and path, without query or fragment (and without placeholders). */
function resourceOf(url: string): string {
  const cut = url.split(/[?#{]/)[0] ?? url;
  try {
    const u = new URL(cut);
    return u.pathname === "/" ? u.origin : `${u.origin}${u.pathname}`.replace(/\/$/, "");
  } catch {
    return cut;
  }
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
    if (u.mode === "user-secret" || u.mode === "user-oauth") {
      issues.push(...userAuthIssues(config, pointer, s, u));
      continue;
    }
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

/** A per-caller mode's issues: a connection name it can be known by, a secret only beside a client id, a key that survives a restart. */
function userAuthIssues(
  config: ToolnexusConfig,
  pointer: string,
  s: Forwarding & { command?: unknown; prefix?: unknown },
  u: Extract<UpstreamAuthConfig, { mode: "user-secret" | "user-oauth" }>,
): ConfigIssue[] {
  const at = `${pointer}/upstreamAuth`;
  const issues: ConfigIssue[] = [];
  if (pointer.startsWith("/openapi/") && u.source === undefined && typeof s.prefix !== "string")
    issues.push({ pointer: at, message: "needs source (the connection's name), or a prefix on the openapi source" });
  if (u.mode === "user-oauth" && config.server.publicUrl === undefined)
    issues.push({
      pointer: at,
      message: "needs server.publicUrl: the login's callback (publicUrl + /oauth/callback) is registered at the authorization server",
    });
  if (u.mode === "user-oauth" && u.clientSecret !== undefined && u.clientId === undefined)
    issues.push({ pointer: `${at}/clientSecret`, message: "applies to clientId only" });
  if ((config.redis || config.vault?.file) && config.server.stateSecret === undefined)
    issues.push({
      pointer: at,
      message: "needs server.stateSecret: the vault's key must survive a restart and be the same on every replica",
    });
  return issues;
}

/** The per-caller mode configured for the connection `source`, with its upstream's URL; undefined when none names it. */
export function userAuthOf(config: ToolnexusConfig, source: string): UserAuth | undefined {
  return userAuths(config).find((u) => u.source === source);
}

/** Every per-caller mode of the config (one per source that sets one), with its connection name and upstream's URL. */
export function userAuths(config: ToolnexusConfig): UserAuth[] {
  const out: UserAuth[] = [];
  for (const [pointer, s] of forwardingSources(config)) {
    const site: UpstreamSite = { url: siteUrl(s) };
    const name = pointer.split("/")[2] ?? "";
    if (pointer.startsWith("/openapi/")) {
      const prefix = (s as { prefix?: unknown }).prefix;
      if (typeof prefix === "string") site.source = prefix;
    } else
      site.source = pointer.startsWith("/http/") ? ((s as { name?: string }).name ?? name) : name.replace(/~1/g, "/").replace(/~0/g, "~");
    const u = upstreamAuthOf(s, site);
    if (isUserAuth(u)) out.push(u);
  }
  return out;
}

function siteUrl(s: { url?: string; baseUrl?: string; spec?: string; card?: string }): string {
  return s.url ?? s.baseUrl ?? s.card ?? s.spec ?? "";
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
