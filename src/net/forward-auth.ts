import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The caller's bearer token for the duration of one tool call, for SDK-driven sources (MCP
 * over HTTP) whose requests are made deep inside a client library: the source's fetch reads
 * it here instead of threading it through the SDK. Only sources with `forwardAuth: true` set it.
 */
const current = new AsyncLocalStorage<string>();

/** Runs `fn` with `bearer` as the forwarded token of every request it makes (none when undefined). */
export function withForwardedBearer<T>(bearer: string | undefined, fn: () => T): T {
  return bearer === undefined ? fn() : current.run(bearer, fn);
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
    const bearer = current.getStore();
    if (bearer === undefined || new URL(url).origin !== origin) return base(url, init);
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${bearer}`);
    return base(url, { ...init, headers });
  };
  return wrapped as F;
}

/**
 * `headers` with the caller's bearer as `Authorization` (any configured one, whatever its
 * case, removed), or `headers` as is when there is no bearer to forward.
 */
export function withBearerHeader(headers: Record<string, string>, bearer: string | undefined): Record<string, string> {
  if (bearer === undefined) return headers;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== "authorization") out[k] = v;
  out.authorization = `Bearer ${bearer}`;
  return out;
}
