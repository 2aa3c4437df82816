import type { FetchLike } from "@modelcontextprotocol/client";
import type { EgressConfig } from "../../../config/schema/server.js";
import { EgressGuard } from "../../../net/egress-guard.js";
import { forwardingFetch } from "../../../net/forward-auth.js";
import { boundedFetch } from "./bounded-body.js";

/** A fetch for one remote MCP server, and how to release its connection pool. */
export interface RemoteFetch {
  fetch: FetchLike;
  close(): Promise<void>;
}

/**
 * The single spot where remote MCP traffic meets the egress guard: every
 * streamable-HTTP and SSE request of the server goes through the guard's dispatcher, so
 * link-local / metadata addresses and `egress.deny` are refused, with no DNS rebinding.
 * With `forwardAuth`, a call's forwarded bearer (see net/forward-auth.ts) replaces the
 * configured Authorization on requests to the server's own origin. Each answer's body is
 * bounded per message (bounded-body.ts). Throws when the egress
 * config cannot be parsed.
 */
export function remoteFetch(egress: EgressConfig | undefined, url: string, forwardAuth = false): RemoteFetch {
  const guard = new EgressGuard(egress ?? {});
  // undici's fetch and the global one differ only in their type declarations.
  // Each answer bounded as it arrives: a server sending 100 MB is refused, not held.
  const fetch = boundedFetch(guard.fetch as unknown as FetchLike);
  return {
    fetch: forwardAuth ? forwardingFetch(fetch, new URL(url).origin) : fetch,
    close: () => guard.close(),
  };
}
