import { fetch as undiciFetch, Headers, type Dispatcher } from "undici";
import { upstreamUnavailable } from "../../core/errors.js";
import { networkErrorReason } from "../../net/network-error.js";

/** Statuses of a gateway in front of the agent saying the agent itself is down. */
const GATEWAY_DOWN = new Set([502, 503, 504]);

/**
 * A `fetch` for the A2A SDK's transports and card fetch: every request goes through the egress
 * guard's dispatcher and carries the agent's configured headers (the SDK's own headers, such
 * as `A2A-Version` and `Content-Type`, win on a clash). "Cannot reach the agent" — DNS,
 * refused, reset, TLS, an egress refusal, a gateway 502/503/504 — throws `upstreamUnavailable`
 * (→ 502) with a secret-free reason; an abort is rethrown untouched so callers can tell it apart.
 */
export function guardedFetch(agentId: string, dispatcher: Dispatcher, configured: Record<string, string> = {}): typeof fetch {
  const impl = async (input: string | URL, init: RequestInit = {}) => {
    const headers = new Headers(configured);
    new Headers(init.headers as Record<string, string> | undefined).forEach((value, key) => headers.set(key, value));
    let res;
    try {
      // Redirects are refused: the configured headers (credentials) must never follow one to
      // another origin. Configure the agent's final URL instead.
      res = await undiciFetch(input, { ...(init as object), headers, dispatcher, redirect: "error" });
    } catch (err) {
      if (init.signal?.aborted) throw err;
      if (/redirect/i.test(String((err as Error).cause ?? ""))) {
        throw upstreamUnavailable(`A2A agent "${agentId}" answered with a redirect; configure its final URL`, err);
      }
      const reason = networkErrorReason(err);
      if (reason) throw upstreamUnavailable(`A2A agent "${agentId}" cannot be reached: ${reason}`, err);
      throw err;
    }
    if (GATEWAY_DOWN.has(res.status)) {
      await res.body?.cancel().catch(() => {});
      throw upstreamUnavailable(`A2A agent "${agentId}" is unavailable: HTTP ${res.status}`);
    }
    return res;
  };
  // The SDK is typed against the DOM fetch; undici's is the same API with its own classes.
  return impl as unknown as typeof fetch;
}
