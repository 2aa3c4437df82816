import { AsyncLocalStorage } from "node:async_hooks";
import type { UpstreamCredential } from "../core/types.js";

/**
 * The caller's bearer token for the duration of one tool call, for SDK-driven sources (MCP
 * over HTTP) whose requests are made deep inside a client library: the source's fetch reads
 * it here instead of threading it through the SDK. Only sources with `forwardAuth: true` set it.
 */
const current = new AsyncLocalStorage<{ name: string; value: string }>();

/** Runs `fn` with `auth` as the forwarded credential of every request it makes (none when undefined). */
export function withForwardedBearer<T>(auth: UpstreamCredential | undefined, fn: () => T): T {
  return auth === undefined ? fn() : current.run(headerOf(auth), fn);
}

/** True while a call forwards a caller's credential: an upstream's 401 is then about that credential, not the server. */
export function forwardsCredential(): boolean {
  return current.getStore() !== undefined;
}

/** The header a credential travels in: its own (a user secret), else `Authorization: Bearer`. */
function headerOf(auth: UpstreamCredential): { name: string; value: string } {
  return auth.header ?? { name: "authorization", value: `Bearer ${auth.bearer}` };
}

type FetchFn = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * Wraps a fetch so a request made under {@link withForwardedBearer} carries that token as
 * `Authorization`, replacing a configured one; other requests are untouched. Only requests to
 * `origin` (the configured URL's) get it: a remote document such as an A2A agent card may name
 * endpoints elsewhere, and the token must not follow it there. fetch drops `Authorization` on a
 * redirect to another origin (Fetch standard), so the token never follows one either.
 */
export function forwardingFetch<F extends FetchFn>(base: F, origin: string): F {
  const wrapped = (url: string | URL, init?: RequestInit) => {
    const header = current.getStore();
    if (header === undefined || new URL(url).origin !== origin) return base(url, init);
    const headers = new Headers(init?.headers);
    headers.set(header.name, header.value);
    return base(url, { ...init, headers });
  };
  return wrapped as F;
}

/**
 * `headers` with the caller's credential in its header (`Authorization: Bearer`, or a user
 * secret's own; a configured one of that name, whatever its case, removed), or `headers` as is
 * when there is nothing to forward.
 */
export function withBearerHeader(headers: Record<string, string>, auth: UpstreamCredential | undefined): Record<string, string> {
  if (auth === undefined) return headers;
  const { name, value } = headerOf(auth);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== name.toLowerCase()) out[k] = v;
  out[name.toLowerCase()] = value;
  return out;
}
