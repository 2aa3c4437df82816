import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { EgressConfig } from "../../config/schema/server.js";
import { EgressGuard } from "../../net/egress-guard.js";

/** A fetch for one remote MCP server, and how to release its connection pool. */
export interface RemoteFetch {
  fetch: FetchLike;
  close(): Promise<void>;
}

/**
 * The single spot where remote MCP traffic meets the egress guard (DESIGN §2): every
 * streamable-HTTP and SSE request of the server goes through the guard's dispatcher, so
 * link-local / metadata addresses and `egress.deny` are refused, with no DNS rebinding.
 * Throws when the egress config cannot be parsed.
 */
export function remoteFetch(egress: EgressConfig | undefined): RemoteFetch {
  const guard = new EgressGuard(egress ?? {});
  return {
    // undici's fetch and the global one differ only in their type declarations.
    fetch: guard.fetch as unknown as FetchLike,
    close: () => guard.close(),
  };
}
