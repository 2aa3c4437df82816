import type { Cluster, Redis } from "ioredis";
import { ToolnexusError } from "../../core/errors.js";
import type { VaultStore } from "./vault-store.js";

/**
 * How long an entry read here is served without asking Redis again: a call then costs no round
 * trip. A change made through this replica is seen at once; one made through another replica
 * (a new secret, a DELETE) within this time. Only entries found are kept: a login completed
 * elsewhere is used by the very next call.
 */
const FRESH_MS = 1_000;

/**
 * The vault in the Redis the replicas share: one hash per owner (`<namespace>:vault:<owner
 * digest>`, a field per connection, each value encrypted), so a login completed through one
 * replica serves a call on any other. A login's state is claimed with SET NX, once for all.
 * Every command names one key, so a Cluster serves it as one Redis does.
 */
export class RedisVaultStore implements VaultStore {
  readonly describe = "redis";
  private readonly recent = new Map<string, { blob: string; until: number }>();
  private readonly prefix: string;
  private readonly claimed: string;

  /** `namespace` is `redis.namespace`: gateways sharing one Redis keep their vaults apart. */
  constructor(
    private readonly redis: Redis | Cluster,
    namespace = "toolnexus",
    private readonly now: () => number = Date.now,
  ) {
    this.prefix = `${namespace}:vault:`;
    this.claimed = `${namespace}:vault-state:`;
  }

  async get(owner: string, source: string): Promise<string | undefined> {
    const id = `${owner}\n${source}`;
    const hit = this.recent.get(id);
    if (hit && hit.until > this.now()) return hit.blob;
    const blob = (await this.run(() => this.redis.hget(this.prefix + owner, source))) ?? undefined;
    if (blob === undefined) this.recent.delete(id);
    else {
      if (this.recent.size >= 10_000) this.recent.clear();
      this.recent.set(id, { blob, until: this.now() + FRESH_MS });
    }
    return blob;
  }

  async set(owner: string, source: string, blob: string): Promise<void> {
    this.recent.delete(`${owner}\n${source}`);
    await this.run(() => this.redis.hset(this.prefix + owner, source, blob));
  }

  async delete(owner: string, source: string): Promise<boolean> {
    this.recent.delete(`${owner}\n${source}`);
    return (await this.run(() => this.redis.hdel(this.prefix + owner, source))) > 0;
  }

  list(owner: string): Promise<Record<string, string>> {
    return this.run(() => this.redis.hgetall(this.prefix + owner));
  }

  async claimOnce(id: string, ttlMs: number): Promise<boolean> {
    return (await this.run(() => this.redis.set(this.claimed + id, "1", "PX", ttlMs, "NX"))) === "OK";
  }

  private async run<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw new ToolnexusError("STORE_UNAVAILABLE", `The credential vault is unreachable: ${(err as Error).message}`);
    }
  }
}
