import type { RedisClient } from "../../redis/connect-redis.js";

/**
 * One subscriber connection per replica, shared by every live reader: channels are
 * subscribed while someone listens and dropped after the last one leaves. ioredis
 * re-subscribes by itself after a reconnect.
 */
export class RedisChannels {
  private readonly handlers = new Map<string, Set<(message: string) => void>>();
  /** What runs when the connection is back after an outage; one pair of listeners for all (a reader each would pile up). */
  private readonly reconnected = new Set<() => void>();

  constructor(private readonly sub: RedisClient) {
    sub.on("message", (channel: string, message: string) => {
      for (const fn of this.handlers.get(channel) ?? []) fn(message);
    });
    let wasDown = false;
    sub.on("close", () => {
      wasDown = true;
    });
    sub.on("ready", () => {
      if (wasDown) for (const fn of [...this.reconnected]) fn();
      wasDown = false;
    });
  }

  /** Runs `fn` each time the connection is back after an outage (messages sent meanwhile are lost). Returns the way to stop. */
  onReconnect(fn: () => void): () => void {
    const own = () => fn();
    this.reconnected.add(own);
    return () => this.reconnected.delete(own);
  }

  /** Listens on `channel` for the life of the connection, across outages (a broadcast every replica needs). */
  always(channel: string, fn: (message: string) => void): void {
    let set = this.handlers.get(channel);
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(fn);
    this.sub.subscribe(channel).catch(() => undefined);
  }

  /** Listens on `channel`; resolves once Redis confirmed the subscription, with the way to stop. */
  async listen(channel: string, fn: (message: string) => void): Promise<() => void> {
    // Never wait for a reconnect: the reader is answered 503 at once instead.
    if (this.sub.status !== "ready") throw new Error("redis subscriber not connected");
    let set = this.handlers.get(channel);
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(fn);
    try {
      await this.sub.subscribe(channel);
    } catch (err) {
      this.remove(channel, fn);
      throw err;
    }
    return () => this.remove(channel, fn);
  }

  private remove(channel: string, fn: (message: string) => void): void {
    const set = this.handlers.get(channel);
    if (!set?.delete(fn) || set.size > 0) return;
    this.handlers.delete(channel);
    this.sub.unsubscribe(channel).catch(() => undefined);
  }
}
