import type { Redis } from "ioredis";
import { ToolnexusError } from "../../core/errors.js";
import type { VaultStore } from "./vault-store.js";

const PREFIX = "toolnexus:vault:";
const CLAIMED = "toolnexus:vault-state:";

/**
 * The vault in the Redis the replicas share: one hash per owner (`toolnexus:vault:<owner
 * digest>`, a field per connection, each value encrypted), so a login completed through one
 * replica serves a call on any other. A login's state is claimed with SET NX, once for all.
 */
export class RedisVaultStore implements VaultStore {
  readonly describe = "redis";

  constructor(private readonly redis: Redis) {}

  async get(owner: string, source: string): Promise<string | undefined> {
    return (await this.run(() => this.redis.hget(PREFIX + owner, source))) ?? undefined;
  }

  async set(owner: string, source: string, blob: string): Promise<void> {
    await this.run(() => this.redis.hset(PREFIX + owner, source, blob));
  }

  async delete(owner: string, source: string): Promise<boolean> {
    return (await this.run(() => this.redis.hdel(PREFIX + owner, source))) > 0;
  }

  list(owner: string): Promise<Record<string, string>> {
    return this.run(() => this.redis.hgetall(PREFIX + owner));
  }

  async claimOnce(id: string, ttlMs: number): Promise<boolean> {
    return (await this.run(() => this.redis.set(CLAIMED + id, "1", "PX", ttlMs, "NX"))) === "OK";
  }

  private async run<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw new ToolnexusError("STORE_UNAVAILABLE", `The credential vault is unreachable: ${(err as Error).message}`);
    }
  }
}
