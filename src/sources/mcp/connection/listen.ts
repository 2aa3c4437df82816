import type { Client } from "@modelcontextprotocol/client";
import type { Logger } from "../../../core/types.js";
import { backoffDelay, sleep } from "./backoff.js";

/** What a listen loop reports back to its connection. */
export interface ListenHooks {
  /** The tool list may have changed (a stream was re-opened, so a notification may have been missed). */
  onResync(): void;
  /** The stream cannot be re-opened: the connection is unusable. */
  onLost(why: string): void;
}

/**
 * Keeps a `subscriptions/listen` stream open for `tools/list_changed` on a 2026-era connection
 * (that revision sends change notifications only on such a stream; they reach the client's
 * notification handler). A stream the server ends or that drops is re-opened after a short
 * backoff, followed by a resync; a stream that cannot be re-opened reports the connection lost.
 * Ends when `signal` aborts or the client closes the stream itself.
 */
export async function keepListening(
  client: Client,
  timeout: number,
  hooks: ListenHooks,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  for (let attempt = 0; !signal.aborted; attempt++) {
    let closed: "local" | "graceful" | "remote";
    try {
      const sub = await client.listen({ toolsListChanged: true }, { timeout, signal });
      if (attempt > 0) hooks.onResync();
      closed = await sub.closed;
    } catch (err) {
      if (!signal.aborted) hooks.onLost(`subscriptions/listen failed: ${(err as Error).message}`);
      return;
    }
    if (closed === "local" || signal.aborted) return;
    logger.debug({ closed }, "mcp subscriptions/listen stream ended; re-opening");
    await sleep(backoffDelay(attempt), signal);
  }
}
