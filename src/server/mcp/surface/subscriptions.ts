import type { ServerEvent } from "@modelcontextprotocol/server";
import type { Surface } from "../../../core/surface/catalog.js";
import { exposedUri } from "../../../core/surface/names.js";
import type { SurfaceProvider } from "../../../core/surface/provider.js";
import type { Logger } from "../../../core/types.js";
import type { ServiceState } from "../../service/service-state.js";

/**
 * Resource subscriptions on this replica, whoever listens (a 2026 `subscriptions/listen`
 * stream, a 2025 stdio session, a REST `GET /resources/events` reader): one upstream
 * subscription per URI while at least one of them wants it (a count per URI), dropped when
 * the last leaves. An update an upstream announces is published on the change events (over
 * Redis to every replica when shared) with the catalog's URI, so a listener on another
 * replica hears it too. When the merged resource or prompt lists change, a
 * `resources_list_changed` or `prompts_list_changed` event is published the same way.
 */

/** The most URIs one listener may subscribe to at once. */
export const MAX_SUBSCRIBED_URIS = 1000;

/** A URI a caller subscribed to, with the server that owns it and that server's own URI. */
export interface SubscribedRoute {
  uri: string;
  owner: SurfaceProvider;
  upstream: string;
}

/** Where change events go: the bus every listener of every replica hears. */
export interface EventSink {
  publish(event: ServerEvent): void;
}

interface Held {
  count: number;
  owner: SurfaceProvider;
  upstream: string;
}

/** Counts listeners per URI and holds the upstream subscriptions; see the file's header. */
export class ResourceSubscriptions {
  private readonly held = new Map<string, Held>();
  private readonly hooked = new WeakSet<SurfaceProvider>();
  private lists?: { resources: string; prompts: string };

  constructor(
    private readonly state: ServiceState,
    private readonly events: EventSink,
    private readonly log: Pick<Logger, "warn">,
  ) {
    // The first catalog in service is what changes are measured against.
    state.onToolkit((tk) => (this.lists ??= signature(tk.surface())));
    state.onCatalogChange(() => this.catalogChanged());
  }

  /** How many listeners hold `uri` on this replica (0: no upstream subscription). */
  count(uri: string): number {
    return this.held.get(uri)?.count ?? 0;
  }

  /**
   * Holds `routes` for one listener: the first listener of a URI subscribes upstream. Returns
   * the release (idempotent): the last listener of a URI to leave unsubscribes upstream.
   */
  acquire(routes: readonly SubscribedRoute[]): () => void {
    const mine = new Map(routes.map((r) => [r.uri, r]));
    for (const r of mine.values()) {
      const h = this.held.get(r.uri);
      if (h) {
        h.count++;
        continue;
      }
      this.held.set(r.uri, { count: 1, owner: r.owner, upstream: r.upstream });
      this.hook(r.owner);
      this.upstream("subscribe", r.owner, r.upstream);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const uri of mine.keys()) this.release(uri);
    };
  }

  private release(uri: string): void {
    const h = this.held.get(uri);
    if (!h) return;
    if (--h.count > 0) return;
    this.held.delete(uri);
    this.upstream("unsubscribe", h.owner, h.upstream);
  }

  private upstream(what: "subscribe" | "unsubscribe", owner: SurfaceProvider, uri: string): void {
    const run = what === "subscribe" ? owner.subscribeResource : owner.unsubscribeResource;
    run
      ?.call(owner, uri)
      .catch((err: Error) => this.log.warn({ error: err.message, source: `mcp/${owner.name}` }, `resources/${what} failed`));
  }

  // An owner's updates become events with the catalog's URI (once per owner object: a reload makes new ones).
  private hook(owner: SurfaceProvider): void {
    if (this.hooked.has(owner) || !owner.onResourceUpdated) return;
    this.hooked.add(owner);
    owner.onResourceUpdated((uri) => this.events.publish({ kind: "resource_updated", uri: exposedUri(owner.surfacePrefix, uri) }));
  }

  // A reload made new sources: the URIs still held move to their new owners. Then the list changes.
  private catalogChanged(): void {
    let surface: Surface;
    try {
      surface = this.state.toolkit().surface();
    } catch {
      return;
    }
    for (const [uri, h] of this.held) {
      const route = surface.route(uri);
      if (!route || route.owner === h.owner) continue;
      this.held.set(uri, { ...h, owner: route.owner, upstream: route.upstream });
      this.hook(route.owner);
      this.upstream("subscribe", route.owner, route.upstream);
    }
    const next = signature(surface);
    const before = this.lists;
    this.lists = next;
    if (!before) return;
    if (before.resources !== next.resources) this.events.publish({ kind: "resources_list_changed" });
    if (before.prompts !== next.prompts) this.events.publish({ kind: "prompts_list_changed" });
  }
}

// What a change of the merged lists is seen by.
function signature(surface: Surface): { resources: string; prompts: string } {
  return {
    resources: JSON.stringify([surface.resources.map((e) => e.item), surface.templates.map((e) => e.item)]),
    prompts: JSON.stringify(surface.prompts.map((e) => e.item)),
  };
}

/** The resource subscriptions of one 2025 session (stdio): held until unsubscribed or the session ends. */
export class SessionSubscriptions {
  private readonly releases = new Map<string, () => void>();

  constructor(private readonly hub: ResourceSubscriptions) {}

  /** Subscribes the session to a URI (again: no change). */
  add(route: SubscribedRoute): void {
    if (!this.releases.has(route.uri)) this.releases.set(route.uri, this.hub.acquire([route]));
  }

  /** Unsubscribes the session from a URI. */
  remove(uri: string): void {
    this.releases.get(uri)?.();
    this.releases.delete(uri);
  }

  /** True when the session subscribed to `uri`. */
  has(uri: string): boolean {
    return this.releases.has(uri);
  }

  /** The session ended: every subscription goes. */
  clear(): void {
    for (const release of this.releases.values()) release();
    this.releases.clear();
  }
}
