import type { JWTPayload } from "jose";
import { ExpiringMap } from "../../core/expiring-map.js";

/** How long a verified token is trusted without verifying its signature again. */
const TTL_MS = 60_000;

/**
 * Tokens already verified, by their exact text, so a client sending the same token on every
 * call pays the signature check once a minute rather than on each call. An entry lasts until
 * the token's `exp` or one minute, whichever is first, and all are dropped whenever the key
 * set changes, so a key removed from the JWKS stops verifying at the same moment as without
 * the cache.
 */
export class VerifiedTokens {
  private readonly entries = new ExpiringMap<JWTPayload>();
  private keySet: unknown;

  /** The cached payload of `token`, if still valid under the key set `keySet` (any changing marker). */
  get(token: string, keySet: unknown): JWTPayload | undefined {
    if (keySet !== this.keySet) {
      this.entries.clear();
      this.keySet = keySet;
      return undefined;
    }
    return this.entries.get(token);
  }

  /** Remembers a payload just verified with the key set `keySet`, never past `notAfter` (ms) when given. */
  set(token: string, payload: JWTPayload, keySet: unknown, notAfter = Infinity): void {
    if (keySet !== this.keySet) {
      this.entries.clear();
      this.keySet = keySet;
    }
    const now = Date.now();
    const until = Math.min(now + TTL_MS, typeof payload.exp === "number" ? payload.exp * 1000 : now, notAfter);
    this.entries.set(token, payload, until);
  }
}
