import { AsyncLocalStorage } from "node:async_hooks";
import type { Client } from "@modelcontextprotocol/client";
import type { LogMessage } from "../../../core/types.js";

type Route = { deliver: (m: LogMessage) => void; open: boolean };

/**
 * Routes an upstream's `notifications/message` to the call it belongs to. A log message
 * carries no request id: over streamable HTTP it arrives on the response stream of the
 * request it is about, which the transport reads in that call's async context, so the call
 * that opened a route there gets it. A message that arrives outside any call's context (stdio,
 * the 2025 standalone GET stream) goes to the one call open on the connection, if exactly one
 * is: with several, nobody can tell whose it is, and another caller's call must not see it.
 */
export class LogRouter {
  private readonly current = new AsyncLocalStorage<Route>();
  private readonly routes = new Set<Route>();

  /** Takes over the client's log notifications. */
  install(client: Client): void {
    client.setNotificationHandler("notifications/message", (n) => {
      const { level, logger, data } = n.params;
      const route = this.current.getStore() ?? (this.routes.size === 1 ? this.routes.values().next().value : undefined);
      if (route?.open) route.deliver({ level, ...(logger !== undefined ? { logger } : {}), data });
    });
  }

  /** Runs `fn` (one call) with its log messages going to `deliver`; the route closes when it settles. */
  async run<T>(deliver: (m: LogMessage) => void, fn: () => Promise<T>): Promise<T> {
    const route: Route = { deliver, open: true };
    this.routes.add(route);
    try {
      return await this.current.run(route, fn);
    } finally {
      route.open = false;
      this.routes.delete(route);
    }
  }
}
