import type { ConfigIssue } from "./config-error.js";
import { BUNDLE_NAME } from "./schema/constants.js";
import type { ToolnexusConfig } from "./schema/index.js";

/** A bundle name that cannot be a URL segment, or a key or policy granted a bundle the config does not define. */
export function bundleGrantIssues(config: ToolnexusConfig): ConfigIssue[] {
  const defined = new Set(Object.keys(config.bundles ?? {}));
  const issues: ConfigIssue[] = [];
  const name = new RegExp(BUNDLE_NAME);
  for (const b of defined)
    if (!name.test(b))
      issues.push({
        pointer: `/bundles/${b}`,
        message: "is not a bundle name: letters, digits, _ and - only, at most 64 (it is a URL segment: /bundles/{name}/mcp)",
      });
  const check = (grants: readonly string[] | undefined, at: string) => {
    for (const [j, b] of (grants ?? []).entries())
      if (!defined.has(b))
        issues.push({ pointer: `${at}/bundles/${j}`, message: `names no bundle (bundles: ${[...defined].join(", ") || "none defined"})` });
  };
  for (const [i, k] of (config.auth?.apiKeys ?? []).entries()) check(k.bundles, `/auth/apiKeys/${i}`);
  for (const [i, p] of (config.auth?.policies ?? []).entries()) check(p.bundles, `/auth/policies/${i}`);
  return issues;
}

/**
 * Turns bundle grants into tool globs: a key or policy granted bundles may use their tools
 * beside its own `tools` (a key with bundles and no `tools` only those). The grant names stay,
 * for which bundle views the caller may open.
 */
export function expandBundleGrants(config: ToolnexusConfig): void {
  const globs = (grants: readonly string[]) => grants.flatMap((b) => config.bundles?.[b]?.tools ?? []);
  for (const k of config.auth?.apiKeys ?? []) if (k.bundles?.length) k.tools = [...(k.tools ?? []), ...globs(k.bundles)];
  for (const p of config.auth?.policies ?? []) if (p.bundles?.length) p.tools = [...p.tools, ...globs(p.bundles)];
}
