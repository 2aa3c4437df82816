import type { ConfigIssue } from "./config-error.js";
import type { ToolnexusConfig } from "./schema/index.js";
import { upstreamAuthIssues } from "./upstream-auth.js";

/**
 * Rules a JSON Schema cannot say well: API key ids are unique (caches, rate limits and logs
 * are keyed by id, so two keys sharing one would share a catalog), and each key has exactly
 * one of `key` and `sha256`; policy ids are unique (audit lines name them) and policies need
 * `auth.jwt` (they apply to JWT callers only). Node refuses a headers timeout longer than the request timeout.
 */
export function semanticIssues(config: ToolnexusConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const seen = new Map<string, number>();
  for (const [i, k] of (config.auth?.apiKeys ?? []).entries()) {
    const first = seen.get(k.id);
    if (first !== undefined) issues.push({ pointer: `/auth/apiKeys/${i}/id`, message: `repeats the id of /auth/apiKeys/${first}` });
    else seen.set(k.id, i);
    if ((k.key === undefined) === (k.sha256 === undefined))
      issues.push({ pointer: `/auth/apiKeys/${i}`, message: "needs exactly one of key and sha256" });
  }
  const { server } = config;
  if (server.headersTimeoutMs > server.requestTimeoutMs)
    issues.push({ pointer: "/server/headersTimeoutMs", message: "must not exceed server.requestTimeoutMs" });
  const policyIds = new Map<string, number>();
  for (const [i, p] of (config.auth?.policies ?? []).entries()) {
    const id = p.id ?? `policies[${i}]`;
    const first = policyIds.get(id);
    if (first !== undefined) issues.push({ pointer: `/auth/policies/${i}/id`, message: `repeats the id of /auth/policies/${first}` });
    else policyIds.set(id, i);
  }
  if ((config.auth?.policies?.length ?? 0) > 0 && !config.auth?.jwt)
    issues.push({ pointer: "/auth/policies", message: "applies to JWT callers only: configure auth.jwt" });
  if (config.auth?.jwt && config.auth.jwt.audience === undefined && !server.publicUrl)
    issues.push({
      pointer: "/auth/jwt/audience",
      message: "is required unless server.publicUrl is set (it then defaults to this resource's URL)",
    });
  if (config.audit?.sink === "file" && !config.audit.path) issues.push({ pointer: "/audit/path", message: "is required with sink: file" });
  issues.push(...upstreamAuthIssues(config), ...redisIssues(config));
  return issues;
}

/** `redis:` names one place: a URL, sentinels with the primary's name, or cluster nodes. */
function redisIssues(config: ToolnexusConfig): ConfigIssue[] {
  const r = config.redis;
  if (!r) return [];
  const given = [r.url && "url", r.sentinels && "sentinels", r.cluster && "cluster"].filter(Boolean);
  if (given.length !== 1) return [{ pointer: "/redis", message: "needs exactly one of url, sentinels and cluster" }];
  const issues: ConfigIssue[] = [];
  if (r.sentinels && !r.name) issues.push({ pointer: "/redis/name", message: "is required with sentinels (the primary they monitor)" });
  if (!r.sentinels && r.name) issues.push({ pointer: "/redis/name", message: "applies to sentinels only" });
  if (!r.sentinels && r.sentinelPassword) issues.push({ pointer: "/redis/sentinelPassword", message: "applies to sentinels only" });
  if (r.url && (r.username ?? r.password ?? r.tls) !== undefined)
    issues.push({ pointer: "/redis", message: "with url, put the user, password and TLS (rediss://) in the URL" });
  return issues;
}
