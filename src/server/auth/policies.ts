import picomatch from "picomatch";
import type { JWTPayload } from "jose";
import type { PolicyConfig } from "../../config/schema/index.js";
import type { SurfaceGrant } from "../../core/surface/access.js";
import type { Caller } from "./caller.js";
import { surfaceGrantsOf, type BundleGlobs } from "./surface-grants.js";

/** What the policies look at in a verified token. */
export interface Claims {
  sub: string;
  groups: ReadonlySet<string>;
  scopes: ReadonlySet<string>;
  /** The token's `exp` (seconds since the epoch), when it has one. */
  exp?: number;
}

interface CompiledPolicy {
  id: string;
  groups?: readonly string[];
  scopes?: readonly string[];
  subjects?: readonly string[];
  tools: (name: string) => boolean;
  requireScopes?: readonly string[];
  operator: boolean;
  bundles?: readonly string[];
  /** Its surface grants, when it or a bundle it grants sets `resources` / `prompts` globs. */
  surfaceGrants?: readonly SurfaceGrant[];
}

/**
 * `auth.policies`: a JWT caller may use the union of the tools of every policy
 * that matches it, and is an operator when any matching policy says so. A caller matching no
 * policy sees no tools. Every criterion a policy gives must match; within one, any value does.
 */
export class Policies {
  private readonly list: CompiledPolicy[];

  /** `bundles`: the config's, whose `resources` / `prompts` globs a policy granted them shows. */
  constructor(policies: readonly PolicyConfig[], bundles?: BundleGlobs) {
    this.list = policies.map((p, i) => {
      const tools = p.tools.length ? picomatch(p.tools) : () => false;
      const surfaceGrants = surfaceGrantsOf({ tools, resources: p.resources, prompts: p.prompts }, p.bundles, bundles);
      return {
        id: p.id ?? `policies[${i}]`,
        ...(p.groups ? { groups: p.groups } : {}),
        ...(p.scopes ? { scopes: p.scopes } : {}),
        ...(p.subjects ? { subjects: p.subjects } : {}),
        tools,
        ...(p.requireScopes ? { requireScopes: p.requireScopes } : {}),
        operator: p.operator === true,
        ...(p.bundles?.length ? { bundles: p.bundles } : {}),
        ...(surfaceGrants ? { surfaceGrants } : {}),
      };
    });
  }

  /** The caller a verified token stands for; `bearer` is kept for sources that forward it. */
  callerFor(claims: Claims, bearer: string): Caller {
    const matching = this.list.filter((p) => matches(p, claims));
    const allowedBy = (name: string): string | undefined => {
      for (const p of matching) if (p.tools(name)) return p.id;
      return undefined;
    };
    // Scopes a call needs: none when a granting policy's requireScopes are all in the token,
    // else those the first granting policy misses (what the 403 challenge names).
    const lacking = (p: CompiledPolicy) => (p.requireScopes ?? []).filter((s) => !claims.scopes.has(s));
    const missingScopes = matching.some((p) => p.requireScopes)
      ? (name: string): string[] | undefined => {
          let first: string[] | undefined;
          for (const p of matching) {
            if (!p.tools(name)) continue;
            const lack = lacking(p);
            if (lack.length === 0) return undefined;
            first ??= lack;
          }
          return first;
        }
      : undefined;
    const bundles = matching.flatMap((p) => p.bundles ?? []);
    // With globs on any matching policy, each policy is a grant of its own (its globs, or its tools' servers).
    const surfaceGrants = matching.some((p) => p.surfaceGrants)
      ? matching.flatMap((p) => p.surfaceGrants ?? [{ tools: p.tools }])
      : undefined;
    return {
      id: claims.sub,
      ...(bundles.length ? { bundles: [...new Set(bundles)] } : {}),
      // Same matching policies, same tools: such callers share cached listings.
      viewKey: `policies:${JSON.stringify(matching.map((p) => p.id))}`,
      kind: "jwt",
      operator: matching.some((p) => p.operator),
      ...(surfaceGrants ? { surfaceGrants } : {}),
      allows: (name) => allowedBy(name) !== undefined,
      allowedBy,
      ...(missingScopes ? { missingScopes } : {}),
      bearer,
      ...(claims.exp === undefined ? {} : { bearerExp: claims.exp }),
    };
  }
}

function matches(p: CompiledPolicy, c: Claims): boolean {
  if (p.subjects && !p.subjects.includes(c.sub)) return false;
  if (p.groups && !p.groups.some((g) => c.groups.has(g))) return false;
  if (p.scopes && !p.scopes.some((s) => c.scopes.has(s))) return false;
  return true;
}

/** The claims policies use, from a verified payload: groups from `groupsClaim`, scopes from `scope` or `scp`. */
export function claimsOf(payload: JWTPayload, groupsClaim: string): Claims {
  return {
    sub: payload.sub ?? "",
    groups: new Set(strings(payload[groupsClaim])),
    scopes: new Set([...strings(payload.scope), ...strings(payload.scp)].flatMap((s) => s.split(" ")).filter(Boolean)),
    ...(typeof payload.exp === "number" ? { exp: payload.exp } : {}),
  };
}

/** A claim as a list of strings: a string is one value; non-strings are ignored. */
function strings(v: unknown): string[] {
  if (typeof v === "string") return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}
