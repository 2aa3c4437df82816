import type { FastifyRequest } from "fastify";
import type { ToolnexusConfig } from "../../config/schema/index.js";
import { ToolnexusError } from "../../core/errors.js";

/** Where RFC 9728 puts a resource's metadata: this prefix, then the resource's path. */
export const PRM_PREFIX = "/.well-known/oauth-protected-resource";

/** `server.publicUrl` without a trailing slash, if set. */
function configuredBase(config: ToolnexusConfig): string | undefined {
  return config.server.publicUrl?.replace(/\/+$/, "");
}

/**
 * The URL clients reach this gateway at: `server.publicUrl`, else the request's own origin
 * (Fastify reads X-Forwarded-Proto/-Host into it only when `server.trustProxy` says so, so an
 * untrusted client cannot point the metadata elsewhere).
 */
export function resourceBase(config: ToolnexusConfig, request: FastifyRequest): string {
  return configuredBase(config) ?? `${request.protocol}://${request.host}`;
}

/** True when the request is for the MCP endpoint (its path or below). */
function isMcpPath(config: ToolnexusConfig, url: string): boolean {
  const path = url.split("?")[0] ?? "";
  const mcp = config.server.mcp.path;
  return path === mcp || path.startsWith(`${mcp}/`);
}

/** The metadata URL a 401 or 403 on `request` points to: the MCP endpoint's, or the gateway's. */
function metadataUrlFor(config: ToolnexusConfig, request: FastifyRequest): string {
  const base = resourceBase(config, request);
  return `${base}${PRM_PREFIX}${isMcpPath(config, request.url) ? config.server.mcp.path : ""}`;
}

/** Every scope the policies name (`scopes` and `requireScopes`), sorted: what a client may ask for. */
function supportedScopes(config: ToolnexusConfig): string[] {
  const all = new Set<string>();
  for (const p of config.auth?.policies ?? []) for (const s of [...(p.scopes ?? []), ...(p.requireScopes ?? [])]) all.add(s);
  return [...all].sort();
}

/** The RFC 9728 document of the resource at `base` + `path` ("" for the REST API, the MCP path). */
export function protectedResourceMetadata(config: ToolnexusConfig, base: string, path: string): Record<string, unknown> {
  const scopes = supportedScopes(config);
  return {
    resource: `${base}${path}`,
    // Exactly as configured: RFC 8414 clients compare it with the metadata's issuer byte for byte.
    authorization_servers: [config.auth?.jwt?.issuer],
    ...(scopes.length ? { scopes_supported: scopes } : {}),
    bearer_methods_supported: ["header"],
  };
}

/**
 * The audiences a token must name one of: `auth.jwt.audience`, else this resource's URLs
 * (publicUrl and the MCP endpoint under it: an authorization server honouring RFC 8707 mints
 * `aud` = the `resource` the client asked for, which an MCP client sets to the endpoint's URL).
 */
export function expectedAudience(config: ToolnexusConfig): string | string[] | undefined {
  const configured = config.auth?.jwt?.audience;
  if (configured !== undefined) return configured;
  const base = configuredBase(config);
  return base ? [base, `${base}/`, `${base}${config.server.mcp.path}`] : undefined;
}

/** A quoted-string parameter value of a challenge (RFC 9110: backslash escapes). */
function quoted(v: string): string {
  return `"${v.replace(/["\\]/g, "\\$&")}"`;
}

/**
 * `WWW-Authenticate` of a 401 or 403 on `request`: the existing challenge's `error` and `scope`
 * (an insufficient_scope names the scopes needed) kept, with `resource_metadata` added and
 * `scope` defaulting to every supported one, so an MCP client can discover how to get a token.
 */
export function bearerChallenge(config: ToolnexusConfig, request: FastifyRequest, existing: string): string {
  const error = /error="([^"]*)"/.exec(existing)?.[1];
  const needed = /scope="([^"]*)"/.exec(existing)?.[1];
  const scopes = needed !== undefined ? needed.split(" ").filter(Boolean) : supportedScopes(config);
  const params = [`resource_metadata=${quoted(metadataUrlFor(config, request))}`];
  if (scopes.length) params.push(`scope=${quoted(scopes.join(" "))}`);
  if (error) params.unshift(`error=${quoted(error)}`);
  return `Bearer realm="toolnexus", ${params.join(", ")}`;
}

/** 403 for a valid token without the scopes a call of `tool` needs, with the RFC 6750 challenge naming them. */
export function insufficientScope(tool: string, scopes: readonly string[]): ToolnexusError {
  return new ToolnexusError("INSUFFICIENT_SCOPE", `Calling "${tool}" needs the scope ${scopes.join(" ")}`, {
    headers: { "www-authenticate": `Bearer realm="toolnexus", error="insufficient_scope", scope="${scopes.join(" ")}"` },
  });
}
