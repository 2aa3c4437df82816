import picomatch from "picomatch";
import { surfaceGlob, type SurfaceGlobs } from "../core/surface/access.js";

/** A caller's grant, as much of it as a bundle view needs. */
export interface BundleViewer {
  allows(tool: string): boolean;
  viewKey?: string;
  id: string;
  bundles?: readonly string[];
  /** The bundle it is seen through (set by {@link bundleView}): named in its calls' audit lines. */
  bundle?: string;
  /** The bundle's `resources` / `prompts` globs (set by {@link bundleView}): they narrow the surface it sees. */
  bundleSurface?: SurfaceGlobs;
}

/** A bundle as configured, as much of it as a view needs. */
interface BundleDef {
  tools: string[];
  resources?: string[];
  prompts?: string[];
}

/** Why a bundle view is refused: a malformed name, no such bundle, or one the caller was not granted. */
export type BundleRefusal = { kind: "invalid" | "unknown" | "forbidden"; message: string };

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The caller seen through a bundle: it may use a tool only when it could before AND the bundle
 * holds it, so a bundle narrows and never widens. A caller granted bundles may open only those.
 */
export function bundleView<C extends BundleViewer>(
  caller: C,
  name: string,
  bundles: Readonly<Record<string, BundleDef>> | undefined,
): C | BundleRefusal {
  if (!NAME.test(name))
    return { kind: "invalid", message: `"${name.slice(0, 80)}" is not a bundle name: letters, digits, _ and - only, at most 64` };
  const bundle = bundles?.[name];
  if (!bundle || !Object.hasOwn(bundles ?? {}, name)) return { kind: "unknown", message: `No bundle named "${name}"` };
  if (caller.bundles && !caller.bundles.includes(name)) return { kind: "forbidden", message: `This caller may not use bundle "${name}"` };
  const inBundle = picomatch(bundle.tools);
  return {
    ...caller,
    allows: (tool: string) => caller.allows(tool) && inBundle(tool),
    viewKey: `${caller.viewKey ?? caller.id}|bundle:${name}`,
    bundle: name,
    bundleSurface: {
      ...(bundle.resources ? { resources: surfaceGlob(bundle.resources) } : {}),
      ...(bundle.prompts ? { prompts: surfaceGlob(bundle.prompts) } : {}),
    },
  };
}

/** True for a {@link BundleRefusal}. */
export function isRefusal(v: unknown): v is BundleRefusal {
  return typeof v === "object" && v !== null && "kind" in v && "message" in v && Object.keys(v).length === 2;
}

/** The globs of each bundle that match none of `tools`: a typo, or a source that failed to load. */
export function unmatchedGlobs(
  bundles: Readonly<Record<string, { tools: string[] }>>,
  tools: readonly string[],
): { bundle: string; glob: string }[] {
  return Object.entries(bundles).flatMap(([bundle, b]) =>
    b.tools
      .filter((g) => {
        const match = picomatch(g);
        return !tools.some((t) => match(t));
      })
      .map((glob) => ({ bundle, glob })),
  );
}
