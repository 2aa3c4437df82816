import type { Caller } from "../../auth/index.js";
import { JsonRpcError } from "../results.js";
import { surfaceCapabilities } from "./register.js";
import type { ResourceSubscriptions } from "./subscriptions.js";
import type { SurfaceMethods } from "./surface-methods.js";

type Id = string | number;
type Message = { id?: unknown; method?: unknown; params?: unknown };

/** The JSON-RPC error a refused listen is answered with, in place of its stream. */
export interface ListenRefusal {
  jsonrpc: "2.0";
  id: Id;
  error: { code: number; message: string; data?: Record<string, unknown> };
}

/**
 * The 2026 `subscriptions/listen` requests of one stdio connection that name resources. The
 * SDK's stdio listen router keeps each stream's filter, but knows nothing of callers nor of
 * upstreams: here the URIs are checked as a read is (and at most 1,000), held while the listen
 * lasts (until its `notifications/cancelled`, or the connection's end), and known, so an
 * update of one of them is sent for the router to stamp.
 */
export class StdioListens {
  private readonly byId = new Map<Id, { uris: string[]; release: () => void }>();
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly methods: () => SurfaceMethods,
    private readonly hub: ResourceSubscriptions,
    private readonly caller: Caller,
  ) {}

  /** An incoming message: returns the error to answer instead of passing it on, for a listen refused. */
  inbound(message: Message): ListenRefusal | undefined {
    if (message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: Id } | undefined)?.requestId;
      if (id !== undefined) this.end(id);
      return undefined;
    }
    if (message.method !== "subscriptions/listen" || (typeof message.id !== "string" && typeof message.id !== "number")) return undefined;
    const uris = (message.params as { notifications?: { resourceSubscriptions?: unknown } } | undefined)?.notifications
      ?.resourceSubscriptions;
    if (!Array.isArray(uris) || uris.length === 0 || uris.some((u) => typeof u !== "string")) return undefined;
    const methods = this.methods();
    if (!(surfaceCapabilities(methods.surface()).resources as { subscribe?: boolean } | undefined)?.subscribe) return undefined;
    try {
      const routes = methods.subscribeRoutes(this.caller, uris as string[]);
      this.end(message.id);
      const held = [...new Set(uris as string[])];
      for (const uri of held) this.counts.set(uri, (this.counts.get(uri) ?? 0) + 1);
      this.byId.set(message.id, { uris: held, release: this.hub.acquire(routes) });
      return undefined;
    } catch (err) {
      // Anything but a refusal (not loaded yet) is the SDK's to answer.
      if (!(err instanceof JsonRpcError)) return undefined;
      return {
        jsonrpc: "2.0",
        id: message.id,
        error: { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) },
      };
    }
  }

  /** True when an open listen names `uri`. */
  has(uri: string): boolean {
    return (this.counts.get(uri) ?? 0) > 0;
  }

  /** The connection ended: every listen goes. */
  clear(): void {
    for (const id of [...this.byId.keys()]) this.end(id);
  }

  private end(id: Id): void {
    const listen = this.byId.get(id);
    if (!listen) return;
    this.byId.delete(id);
    listen.release();
    for (const uri of listen.uris) {
      const n = (this.counts.get(uri) ?? 1) - 1;
      if (n > 0) this.counts.set(uri, n);
      else this.counts.delete(uri);
    }
  }
}
