import type { Cluster, Redis } from "ioredis";
import { isPin, type PinStore } from "./pin-store.js";
import type { Pin } from "./tool-definition.js";

/**
 * Pins in one Redis hash (tool → pin JSON), so every replica agrees on them; a change is
 * announced on `<key>:changed` and every replica re-reads the hash. A malformed entry is
 * reported as corrupt, like a bad file.
 */
export class RedisPinStore implements PinStore {
  readonly describe = "redis";
  private readonly channel: string;

  /** `redis` runs commands; `subscriber` (a connection of its own) listens for changes. */
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly key: string,
    private readonly subscriber?: Redis | Cluster,
  ) {
    this.channel = `${key}:changed`;
  }

  async load(): Promise<Map<string, Pin>> {
    await connected(this.redis);
    const all = await this.redis.hgetall(this.key);
    const out = new Map<string, Pin>();
    for (const [tool, text] of Object.entries(all)) {
      let pin: unknown;
      try {
        pin = JSON.parse(text);
      } catch {
        pin = undefined;
      }
      if (!isPin(pin)) throw new Error(`the pin of "${tool}" in Redis hash ${this.key} is malformed`);
      out.set(tool, pin);
    }
    return out;
  }

  async save(tool: string, pin: Pin): Promise<void> {
    await this.redis.hset(this.key, tool, JSON.stringify(pin));
    await this.redis.publish(this.channel, tool);
  }

  async remove(tool?: string): Promise<void> {
    if (tool === undefined) await this.redis.del(this.key);
    else await this.redis.hdel(this.key, tool);
    await this.redis.publish(this.channel, tool ?? "*");
  }

  async checkWritable(): Promise<void> {
    await connected(this.redis);
    await this.redis.exists(this.key);
  }

  watch(fn: () => void): void {
    if (!this.subscriber) return;
    void this.subscriber.subscribe(this.channel).catch(() => {});
    this.subscriber.on("message", (channel: string) => {
      if (channel === this.channel) fn();
    });
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect();
    this.redis.disconnect();
  }
}

// Commands fail at once while the connection is not up (no offline queue): wait for it at start-up.
const CONNECT_TIMEOUT_MS = 5_000;

async function connected(redis: Redis | Cluster): Promise<void> {
  if (redis.status === "ready") return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off("ready", ready);
      reject(new Error(`Redis did not answer within ${CONNECT_TIMEOUT_MS} ms`));
    }, CONNECT_TIMEOUT_MS);
    const ready = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once("ready", ready);
  });
}
