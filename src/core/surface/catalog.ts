import type { Logger } from "../types.js";
import { exposedPromptName, exposedUri, prefixOfUri, upstreamUri, uriPrefix } from "./names.js";
import type { SurfaceItem, SurfaceProvider } from "./provider.js";

/**
 * The merged resources, templates and prompts of every provider, named for callers, in
 * provider order (the catalog's order), and the way back from a caller's name or URI to the
 * provider that owns it. Two providers that would show the same URI, template or prompt name:
 * the later one's is refused with a warning naming both (set a prefix on one of them).
 */

/** One listed item in the catalog's form, with its owner and the owner's own name or URI. */
export interface SurfaceEntry {
  item: SurfaceItem;
  owner: SurfaceProvider;
  /** The provider's own URI, URI template or prompt name. */
  upstream: string;
}

/** Where a caller's URI leads: the owning provider and its own URI. */
export interface SurfaceRoute {
  owner: SurfaceProvider;
  upstream: string;
}

/** The merged surface of one catalog version. */
export class Surface {
  private readonly promptByName: Map<string, SurfaceEntry>;
  private readonly resourceByUri: Map<string, SurfaceEntry>;
  private readonly templateByUri: Map<string, SurfaceEntry>;

  constructor(
    readonly providers: readonly SurfaceProvider[],
    readonly resources: readonly SurfaceEntry[],
    readonly templates: readonly SurfaceEntry[],
    readonly prompts: readonly SurfaceEntry[],
  ) {
    this.promptByName = new Map(prompts.map((e) => [e.item.name as string, e]));
    this.resourceByUri = new Map(resources.map((e) => [e.item.uri as string, e]));
    this.templateByUri = new Map(templates.map((e) => [e.item.uriTemplate as string, e]));
  }

  /** The prompt a caller named. */
  prompt(name: string): SurfaceEntry | undefined {
    return this.promptByName.get(name);
  }

  /** The resource template a caller named by its (catalog) URI template. */
  template(uriTemplate: string): SurfaceEntry | undefined {
    return this.templateByUri.get(uriTemplate);
  }

  /**
   * The provider of a caller's URI: by its prefix; for a server attached with `prefix: false`,
   * the one that lists it or whose template matches it, or the only such server.
   */
  route(exposed: string): SurfaceRoute | undefined {
    const p = prefixOfUri(exposed);
    if (p !== undefined) {
      const owner = this.providers.find((s) => s.surfacePrefix !== false && uriPrefix(s.surfacePrefix) === p);
      const upstream = owner && upstreamUri(owner.surfacePrefix, exposed);
      if (owner && upstream !== undefined) return { owner, upstream };
    }
    const listed = this.resourceByUri.get(exposed);
    if (listed) return { owner: listed.owner, upstream: listed.upstream };
    const unprefixed = this.providers.filter((s) => s.surfacePrefix === false);
    const byTemplate = this.templates.find((t) => t.owner.surfacePrefix === false && templateMatches(t.upstream, exposed));
    if (byTemplate) return { owner: byTemplate.owner, upstream: exposed };
    return unprefixed.length === 1 ? { owner: unprefixed[0] as SurfaceProvider, upstream: exposed } : undefined;
  }
}

/**
 * The surface of `providers`. `warned` keeps the collisions already warned about, so a
 * re-list warns once per pair.
 */
export function buildSurface(providers: readonly SurfaceProvider[], logger: Logger, warned = new Set<string>()): Surface {
  const resources: SurfaceEntry[] = [];
  const templates: SurfaceEntry[] = [];
  const prompts: SurfaceEntry[] = [];
  const seen = { resource: new Map<string, string>(), template: new Map<string, string>(), prompt: new Map<string, string>() };
  const keep = (kind: keyof typeof seen, key: string, owner: SurfaceProvider): boolean => {
    const first = seen[kind].get(key);
    if (first === undefined) {
      seen[kind].set(key, owner.name);
      return true;
    }
    const pair = `${kind}|${key}|${first}|${owner.name}`;
    if (!warned.has(pair)) {
      warned.add(pair);
      logger.warn(
        { [kind]: key, source: `mcp/${owner.name}`, earlier: `mcp/${first}` },
        `${kind} collides with one of an earlier server; refused (set a different prefix on one of the servers)`,
      );
    }
    return false;
  };
  for (const owner of providers) {
    const { surfacePrefix: prefix } = owner;
    const lists = owner.surfaceLists();
    for (const r of lists.resources) {
      if (typeof r.uri !== "string") continue;
      const uri = exposedUri(prefix, r.uri);
      if (keep("resource", uri, owner)) resources.push({ item: { ...r, uri }, owner, upstream: r.uri });
    }
    for (const t of lists.templates) {
      if (typeof t.uriTemplate !== "string") continue;
      const uriTemplate = exposedUri(prefix, t.uriTemplate);
      if (keep("template", uriTemplate, owner)) templates.push({ item: { ...t, uriTemplate }, owner, upstream: t.uriTemplate });
    }
    for (const p of lists.prompts) {
      if (typeof p.name !== "string") continue;
      const name = exposedPromptName(prefix, p.name);
      if (keep("prompt", name, owner)) prompts.push({ item: { ...p, name }, owner, upstream: p.name });
    }
  }
  return new Surface(providers, resources, templates, prompts);
}

/**
 * True when `uri` could be an expansion of the RFC 6570 template: its literal parts in order, a
 * `{...}` standing for any run of characters (a simple `{var}` not crossing a `/`).
 */
export function templateMatches(template: string, uri: string): boolean {
  let pattern = "^";
  let rest = template;
  for (let m = /\{([^}]*)\}/.exec(rest); m; m = /\{([^}]*)\}/.exec(rest)) {
    pattern += escape(rest.slice(0, m.index));
    const op = m[1]?.[0];
    pattern += op === "+" || op === "#" || op === "/" || op === "?" || op === "&" || op === ";" || op === "." ? ".*" : "[^/?#]*";
    rest = rest.slice(m.index + m[0].length);
  }
  pattern += `${escape(rest)}$`;
  return new RegExp(pattern).test(uri);
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
