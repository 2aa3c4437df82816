import { randomUUID } from "node:crypto";
import type { ServerEvent, ServerEventBus } from "@modelcontextprotocol/server";

/** The channel of a deployment whose `redis.namespace` is `namespace`. */
export function eventsChannel(namespace = "toolnexus"): string {
  return `${namespace}:mcp:events`;
}

/** The Redis a bus spans replicas with: a connection for commands, and one made for subscribing. */
export interface EventsRedis {
  /** The deployment's channel ({@link eventsChannel}): gateways sharing one Redis do not hear each other. */
  channel?: string;
  publish(channel: string, message: string): Promise<unknown>;
  /** A new connection in subscriber mode (made on the first listener, kept until close). */
  subscriber(): {
    subscribe(channel: string): Promise<unknown>;
    on(event: "message", fn: (channel: string, message: string) => void): unknown;
    disconnect(): void;
  };
}

/**
 * The change events `subscriptions/listen` streams hear (a catalog reload, an upstream's
 * list change). In one process a plain listener set; with `redis:` every event is also
 * published on a channel every replica subscribes to, so a client listening on one replica
 * hears a reload done on another. Our own messages coming back from Redis are skipped:
 * they were delivered here already. Kept free of the SDK, so a replica that nobody speaks
 * MCP to can still announce its reloads to the others.
 */
export class McpEvents implements ServerEventBus {
  private readonly listeners = new Set<(event: ServerEvent) => void>();
  private readonly origin = randomUUID();
  private sub?: ReturnType<EventsRedis["subscriber"]>;
  private readonly channel: string;

  constructor(
    private readonly redis?: EventsRedis,
    private readonly onerror: (err: Error) => void = () => {},
  ) {
    this.channel = redis?.channel ?? eventsChannel();
  }

  /** Delivers `event` here and, with Redis, to every other replica. */
  publish(event: ServerEvent): void {
    this.deliver(event);
    this.redis?.publish(this.channel, JSON.stringify({ origin: this.origin, event })).catch((err: Error) => this.onerror(err));
  }

  /** Registers a listener (one open listen router); returns its unsubscribe. */
  subscribe(listener: (event: ServerEvent) => void): () => void {
    this.listeners.add(listener);
    if (this.redis && !this.sub) this.listen(this.redis);
    return () => void this.listeners.delete(listener);
  }

  /** Drops the subscriber connection. */
  close(): void {
    this.sub?.disconnect();
  }

  private listen(redis: EventsRedis): void {
    const sub = (this.sub = redis.subscriber());
    sub.on("message", (channel, message) => {
      if (channel !== this.channel) return;
      try {
        const { origin, event } = JSON.parse(message) as { origin?: string; event?: ServerEvent };
        if (origin !== this.origin && event && typeof event.kind === "string") this.deliver(event);
      } catch (err) {
        this.onerror(err as Error);
      }
    });
    sub.subscribe(this.channel).catch((err: Error) => this.onerror(err));
  }

  private deliver(event: ServerEvent): void {
    for (const fn of [...this.listeners]) {
      try {
        fn(event);
      } catch (err) {
        this.onerror(err as Error);
      }
    }
  }
}
