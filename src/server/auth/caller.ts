import type { SurfaceGlobs, SurfaceGrant } from "../../core/surface/access.js";

/** How a caller proved who it is. */
type CallerKind = "anonymous" | "apiKey" | "jwt";

/**
 * Who is calling, once authenticated. `id` is the principal (the API key id or the JWT `sub`):
 * log lines, rate limits and the ownership of executions are keyed by it. `allows` says which
 * tools the caller may see and use; every route filters by it.
 */
export interface Caller {
  id: string;
  allows(toolName: string): boolean;
  /**
   * Callers with equal `viewKey`s see the same tools: per-caller caches (GET /tools,
   * /openapi.json) key on it. Not the id: one JWT subject may hold other groups tomorrow, and
   * a key id may equal some subject. Defaults to `id` when absent.
   */
  viewKey?: string;
  /** How it authenticated. Always set by the auth layer. */
  kind?: CallerKind;
  /** The bundle this caller is seen through (`/bundles/{name}/mcp`, `?bundle=`): its audit lines name it. */
  bundle?: string;
  /** Bundles granted (auth.apiKeys[].bundles, a policy's bundles): when set, the only bundle views it may open. */
  bundles?: readonly string[];
  /**
   * Its grants' `resources` / `prompts` globs (the key's, each matching policy's, each granted
   * bundle's), set only when one of them has globs: without, it sees the resources and prompts
   * of the servers whose tools it may use (core/surface/access.ts).
   */
  surfaceGrants?: readonly SurfaceGrant[];
  /** Seen through a bundle: that bundle's `resources` / `prompts` globs (empty when it sets none). */
  bundleSurface?: SurfaceGlobs;
  /** May read `/status` and `/metrics` (every caller when no auth is configured). */
  operator?: boolean;
  /**
   * The id of the policy that grants `toolName` (JWT callers), for the audit line; undefined
   * for API keys (their own `tools` list decides) and for tools not allowed.
   */
  allowedBy?(toolName: string): string | undefined;
  /**
   * The scopes the token lacks to call `toolName` (its policies' `requireScopes`), or
   * undefined when none are missing. Absent when no matching policy requires scopes.
   */
  missingScopes?(toolName: string): string[] | undefined;
  /**
   * The caller's own bearer token, for sources with `forwardAuth: true`. JWT callers only: an
   * API key is a gateway credential and never leaves the gateway. Never log it.
   */
  bearer?: string;
  /** When {@link bearer} expires: its verified `exp` (seconds since the epoch), when it has one. */
  bearerExp?: number;
}

/** Everyone, when no auth is configured. */
export const ANONYMOUS: Caller = { id: "anonymous", viewKey: "anonymous", kind: "anonymous", operator: true, allows: () => true };

/**
 * The caller's identity as a key of what it owns (executions, in-flight MCP calls): kind and
 * id, so a JWT subject that happens to equal an API key id never reaches that key's work.
 */
export function ownerKey(caller: Caller): string {
  return caller.kind === undefined || caller.kind === "anonymous" ? caller.id : `${caller.kind}:${caller.id}`;
}
