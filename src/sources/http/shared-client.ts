import type { Dispatcher } from "undici";
import type { EgressConfig } from "../../config/schema/server.js";
import { EgressGuard } from "../../net/egress-guard.js";

/**
 * One guarded undici Agent shared by every http/openapi source of a config: the Agent keeps
 * one connection pool per upstream origin, so tools calling the same API share connections.
 * Reference-counted: the last source to release it closes it.
 */
export class SharedHttpClient {
  private agent?: Dispatcher;
  private users = 0;

  constructor(private readonly egress: EgressConfig | undefined) {}

  /** The dispatcher, created on first use. Throws when the egress config has an invalid entry. */
  acquire(): Dispatcher {
    this.agent ??= new EgressGuard(this.egress).dispatcher();
    this.users++;
    return this.agent;
  }

  /** Gives one acquisition back; closes the Agent when none is left. */
  async release(): Promise<void> {
    if (this.users === 0) return;
    this.users--;
    if (this.users > 0 || !this.agent) return;
    const a = this.agent;
    this.agent = undefined;
    await a.close();
  }
}

const clients = new WeakMap<object, SharedHttpClient>();

/** The shared client of one loaded config (keyed by the config object). */
export function sharedHttpClient(key: object, egress: EgressConfig | undefined): SharedHttpClient {
  let c = clients.get(key);
  if (!c) {
    c = new SharedHttpClient(egress);
    clients.set(key, c);
  }
  return c;
}
