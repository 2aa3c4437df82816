import type { Tool } from "../types.js";
import { templateMatches, type Surface, type SurfaceEntry, type SurfaceRoute } from "./catalog.js";
import type { SurfaceProvider } from "./provider.js";
import { uiResourceOf } from "./rewrite.js";

/**
 * Which resources, resource templates and prompts one caller sees: the single decision every
 * route of the surface (MCP and REST) filters by. Pure: the caller's grants come in as
 * matchers, the tools it may use as a set.
 *
 * Each grant (an API key, one of a JWT caller's matching policies, a bundle granted to either)
 * shows what its `resources` / `prompts` globs name or, without them, the resources and
 * prompts of the servers with a tool the grant gives; a caller sees the union of its grants.
 * Seen through a bundle, only what the bundle shows as well (its globs, or its servers). An MCP
 * App's `ui://` resource follows its tools whatever the globs: shown when the caller may use a
 * tool that points at it, hidden when it may use none of them. A prompt or template that
 * pinning withholds is shown to nobody.
 */

/** Matches one catalog URI (or URI template) or prompt name. */
export type Matcher = (s: string) => boolean;

/** A grant's globs over the surface: each, when set, replaces the grant's default for its kind. */
export interface SurfaceGlobs {
  resources?: Matcher;
  prompts?: Matcher;
}

/** One grant of a caller: the tools it gives (its default surface) and its globs. */
export interface SurfaceGrant extends SurfaceGlobs {
  tools: Matcher;
}

/** What the decision needs of a caller. */
export interface SurfaceViewer {
  /** May use the tool (every narrowing, a bundle's included). */
  allows(tool: string): boolean;
  /** Its grants, when any sets globs; absent: the default over the tools it may use. */
  surfaceGrants?: readonly SurfaceGrant[];
  /** Set when seen through a bundle: the bundle's globs (an empty object when it sets none). */
  bundleSurface?: SurfaceGlobs;
}

/** The surface as one caller sees it. */
export interface SurfaceView {
  resources: SurfaceEntry[];
  templates: SurfaceEntry[];
  prompts: SurfaceEntry[];
  /** The visible prompt of that name. */
  prompt(name: string): SurfaceEntry | undefined;
  /** The visible template of that (catalog) URI template. */
  template(uriTemplate: string): SurfaceEntry | undefined;
  /** True when the caller may read `uri` (a catalog URI) that leads to `route`. */
  mayRead(route: SurfaceRoute, uri: string): boolean;
}

/** The pin key of a prompt or resource template (tools are pinned under their name). */
export function surfacePinKey(kind: "prompt" | "resourceTemplate", name: string): string {
  return `${kind}:${name}`;
}

/**
 * A glob over URIs or prompt names: `*` stands for any run of characters (`/` included, a URI
 * is no path), `?` for one; everything else is literal.
 */
export function surfaceGlob(globs: readonly string[]): Matcher {
  const res = globs.map(
    (g) =>
      new RegExp(
        `^${g
          .replace(/[.+^${}()|[\]\\]/g, "\\$&")
          .replace(/\*/g, ".*")
          .replace(/\?/g, ".")}$`,
        "s",
      ),
  );
  return (s) => res.some((r) => r.test(s));
}

/**
 * The caller's view of `surface`. `usable`: the tools in its view (allowed and not withheld);
 * `withheld`: pin keys pinning holds back.
 */
export function viewSurface(
  surface: Surface,
  viewer: SurfaceViewer,
  usable: ReadonlySet<Tool>,
  withheld: (pinKey: string) => boolean = () => false,
): SurfaceView {
  const everything = viewer.allows("");
  // The servers a tool matcher gives: one with a usable tool it matches (a server without tools: to a caller allowed everything).
  const ownersBy = (m: Matcher): Set<SurfaceProvider> =>
    new Set(
      surface.providers.filter((p) => (p.tools().length === 0 ? everything && m("") : p.tools().some((t) => usable.has(t) && m(t.name)))),
    );
  const owners = ownersBy(() => true);
  const grants = (viewer.surfaceGrants ?? []).map((g) => ({ ...g, owners: ownersBy(g.tools) }));
  const { allowedUi, hiddenUi } = uiOf(surface, usable);
  const shows = (kind: keyof SurfaceGlobs, owner: SurfaceProvider, key: string): boolean => {
    if (viewer.bundleSurface && !(viewer.bundleSurface[kind]?.(key) ?? owners.has(owner))) return false;
    if (!viewer.surfaceGrants) return owners.has(owner);
    return grants.some((g) => g[kind]?.(key) ?? g.owners.has(owner));
  };
  const resourceShown = (owner: SurfaceProvider, uri: string) =>
    allowedUi.has(uri) || (!hiddenUi.has(uri) && shows("resources", owner, uri));
  const resources = surface.resources.filter((e) => resourceShown(e.owner, e.item.uri as string));
  const held = surface.templates.filter((e) => withheld(surfacePinKey("resourceTemplate", e.item.uriTemplate as string)));
  const templates = surface.templates.filter((e) => {
    const t = e.item.uriTemplate as string;
    return !held.includes(e) && !hiddenUi.has(t) && shows("resources", e.owner, t);
  });
  // A URI no resource lists that only a withheld template of its server makes is not read either.
  const listed = new Set(surface.resources.map((e) => e.item.uri as string));
  const heldTemplate = (route: SurfaceRoute, uri: string) =>
    !listed.has(uri) && held.some((e) => e.owner === route.owner && templateMatches(e.item.uriTemplate as string, uri));
  const prompts = surface.prompts.filter(
    (e) => !withheld(surfacePinKey("prompt", e.item.name as string)) && shows("prompts", e.owner, e.item.name as string),
  );
  const promptByName = new Map(prompts.map((e) => [e.item.name as string, e]));
  const templateByUri = new Map(templates.map((e) => [e.item.uriTemplate as string, e]));
  return {
    resources,
    templates,
    prompts,
    prompt: (name) => promptByName.get(name),
    template: (uriTemplate) => templateByUri.get(uriTemplate),
    mayRead: (route, uri) => resourceShown(route.owner, uri) && !heldTemplate(route, uri),
  };
}

// The `ui://` resources of tools the caller may use, and those of tools it may use none of.
function uiOf(surface: Surface, usable: ReadonlySet<Tool>): { allowedUi: Set<string>; hiddenUi: Set<string> } {
  const allowedUi = new Set<string>();
  const deniedUi = new Set<string>();
  for (const p of surface.providers)
    for (const t of p.tools()) {
      const ui = uiResourceOf(t.meta);
      if (ui !== undefined) (usable.has(t) ? allowedUi : deniedUi).add(ui);
    }
  return { allowedUi, hiddenUi: new Set([...deniedUi].filter((u) => !allowedUi.has(u))) };
}
