import type { Client } from "@modelcontextprotocol/client";
import type { Progress } from "../../../core/types.js";

/**
 * Routes notifications/progress to the call that asked for them, by our own progress tokens.
 * The SDK's `onprogress` drops the last notification when it arrives in the same read as the
 * result (its handler map is cleared synchronously, notifications are dispatched a microtask
 * later); routing here keeps the route open until the call's own continuation closes it.
 */
export class ProgressRouter {
  private next = 0;
  private readonly routes = new Map<string | number, (p: Progress) => void>();

  /** Takes over the client's progress notifications. */
  install(client: Client): void {
    client.setNotificationHandler("notifications/progress", (n) => {
      const { progressToken, progress, total, message } = n.params;
      this.routes.get(progressToken)?.({
        progress,
        ...(total !== undefined ? { total } : {}),
        ...(message !== undefined ? { message } : {}),
      });
    });
  }

  /** A fresh token whose notifications go to `fn` until `close()`. */
  open(fn: (p: Progress) => void): { token: string; close(): void } {
    const token = `tn-${++this.next}`;
    this.routes.set(token, fn);
    return { token, close: () => this.routes.delete(token) };
  }
}
