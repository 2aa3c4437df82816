import type { Client } from "@modelcontextprotocol/client";
import type { Logger } from "../../../core/types.js";
import { backoffDelay, sleep } from "../connection/backoff.js";

/** A 2026 `subscriptions/listen` stream held open for one URI. */
interface Stream {
  close(): Promise<void>;
}

/**
 * The resource subscriptions the gateway holds on one MCP server, by the server's own URIs:
 * `resources/subscribe` on a 2025 session, one `subscriptions/listen` stream per URI on a
 * 2026 one. The URIs wanted outlive a session: a reconnect subscribes them again on the new
 * one. The server's `notifications/resources/updated` reach the listeners with its own URI
 * (the catalog maps it to the caller's name).
 */
export class UpstreamSubscriptions {
  private readonly wanted = new Set<string>();
  private readonly listeners = new Set<(uri: string) => void>();
  private client?: Client;
  private streams = new Map<string, Stream>();

  constructor(
    private readonly timeout: number,
    private readonly log: () => Logger,
    private readonly scrub: (s: string) => string,
  ) {}

  /** Takes a new session: listens for its updates and subscribes every wanted URI on it. */
  attach(client: Client): void {
    this.client = client;
    this.streams = new Map();
    client.setNotificationHandler("notifications/resources/updated", (n) => {
      if (client === this.client && typeof n.params?.uri === "string") this.emit(n.params.uri);
    });
    for (const uri of this.wanted) void this.open(client, uri);
  }

  /** Wants updates of `uri` (the server's own); a no-op when already wanted. */
  async subscribe(uri: string): Promise<void> {
    if (this.wanted.has(uri)) return;
    this.wanted.add(uri);
    if (this.client) await this.open(this.client, uri);
  }

  /** No longer wants updates of `uri`: the server is told so. */
  async unsubscribe(uri: string): Promise<void> {
    if (!this.wanted.delete(uri)) return;
    const client = this.client;
    const stream = this.streams.get(uri);
    this.streams.delete(uri);
    if (stream) return void (await stream.close().catch(() => {}));
    if (!client || client.getProtocolEra() === "modern" || !subscribable(client)) return;
    await client.unsubscribeResource({ uri }, { timeout: this.timeout }).catch((err: Error) => this.warn("resources/unsubscribe", err));
  }

  /** Registers a listener of the server's updates; returns the way to stop. */
  onUpdated(fn: (uri: string) => void): () => void {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  }

  private emit(uri: string): void {
    for (const fn of [...this.listeners]) fn(uri);
  }

  // One subscription on `client`; a failure is logged (the caller's own subscription still stands).
  private async open(client: Client, uri: string): Promise<void> {
    if (!subscribable(client)) return;
    if (client.getProtocolEra() !== "modern") {
      await client.subscribeResource({ uri }, { timeout: this.timeout }).catch((err: Error) => this.warn("resources/subscribe", err));
      return;
    }
    void this.listen(client, uri);
  }

  // A 2026 stream per URI, re-opened after a backoff when the server ends it (an update may have been missed then).
  private async listen(client: Client, uri: string): Promise<void> {
    const live = () => client === this.client && this.wanted.has(uri);
    for (let attempt = 0; live(); attempt++) {
      let stream;
      try {
        stream = await client.listen({ resourceSubscriptions: [uri] }, { timeout: this.timeout });
      } catch (err) {
        this.warn("subscriptions/listen", err as Error);
        return;
      }
      if (!live()) return void (await stream.close().catch(() => {}));
      this.streams.set(uri, stream);
      if (attempt > 0) this.emit(uri);
      const closed = await stream.closed;
      if (closed === "local" || this.streams.get(uri) !== stream) return;
      this.streams.delete(uri);
      await sleep(backoffDelay(attempt), new AbortController().signal);
    }
  }

  private warn(method: string, err: Error): void {
    this.log().warn({ error: this.scrub(err.message) }, `mcp ${method} failed`);
  }
}

// The server announced `resources.subscribe`.
function subscribable(client: Client): boolean {
  return (client.getServerCapabilities()?.resources as { subscribe?: boolean } | undefined)?.subscribe === true;
}
