import type { JWTPayload } from "jose";

/** How long a verified token is trusted without verifying its signature again. */
const TTL_MS = 60_000;
/** Past this many entries the cache starts over: a bound, not an LRU (tokens are short-lived). */
const MAX_ENTRIES = 10_000;

/**
 * Tokens already verified, by their exact text, so a client sending the same token on every
 * call pays the signature check once a minute rather than on each call. An entry lasts until
 * the token's `exp` or one minute, whichever is first, and all are dropped whenever the key
 * set changes, so a key removed from the JWKS stops verifying at the same moment as without
 * the cache.
 */
export class VerifiedTokens {
  private readonly entries = new Map<string, { payload: JWTPayload; until: number }>();
  private keySet: unknown;

  /** The cached payload of `token`, if still valid under the key set `keySet` (any changing marker). */
  get(token: string, keySet: unknown): JWTPayload | undefined {
    if (keySet !== this.keySet) {
      this.entries.clear();
      this.keySet = keySet;
      return undefined;
    }
    const hit = this.entries.get(token);
    if (!hit) return undefined;
    if (Date.now() < hit.until) return hit.payload;
    this.entries.delete(token);
    return undefined;
  }

  /** Remembers a payload just verified with the key set `keySet`, never past `notAfter` (ms) when given. */
  set(token: string, payload: JWTPayload, keySet: unknown, notAfter = Infinity): void {
    if (keySet !== this.keySet) {
      this.entries.clear();
      this.keySet = keySet;
    }
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    const now = Date.now();
    const until = Math.min(now + TTL_MS, typeof payload.exp === "number" ? payload.exp * 1000 : now, notAfter);
    if (until > now) this.entries.set(token, { payload, until });
  }
}
