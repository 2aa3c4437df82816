import picomatch from "picomatch";
import { surfaceGlob, type SurfaceGrant } from "../../core/surface/access.js";

/**
 * The surface grants of an API key or a policy (core/surface/access.ts): its own, and one per
 * granted bundle that sets `resources` or `prompts` globs. Undefined when no grant sets any:
 * the caller then sees the resources and prompts of the servers whose tools it may use, and
 * pays nothing for the globs it does not have.
 */

/** A key's, a policy's or a bundle's globs as configured. */
export interface SurfaceGlobConfig {
  resources?: readonly string[] | undefined;
  prompts?: readonly string[] | undefined;
}

/** The bundles of the config, as much of them as a grant needs. */
export type BundleGlobs = Readonly<Record<string, SurfaceGlobConfig & { tools: readonly string[] }>>;

/** One grant: the tools it gives and its globs. */
function grantOf(tools: (name: string) => boolean, globs: SurfaceGlobConfig): SurfaceGrant {
  return {
    tools,
    ...(globs.resources ? { resources: surfaceGlob(globs.resources) } : {}),
    ...(globs.prompts ? { prompts: surfaceGlob(globs.prompts) } : {}),
  };
}

/** The grants of one key or policy (`own`: its tools and globs) with its granted bundles'; undefined when none has globs. */
export function surfaceGrantsOf(
  own: { tools: (name: string) => boolean } & SurfaceGlobConfig,
  granted: readonly string[] | undefined,
  bundles: BundleGlobs | undefined,
): SurfaceGrant[] | undefined {
  const withGlobs = (g: SurfaceGlobConfig) => g.resources !== undefined || g.prompts !== undefined;
  const fromBundles = (granted ?? []).flatMap((b) => {
    const bundle = bundles?.[b];
    return bundle && withGlobs(bundle) ? [grantOf(picomatch(bundle.tools as string[]), bundle)] : [];
  });
  if (!withGlobs(own) && fromBundles.length === 0) return undefined;
  return [grantOf(own.tools, own), ...fromBundles];
}
