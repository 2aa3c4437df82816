import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  jwksCache,
  jwtVerify,
  type JWKSCacheInput,
  type JWTPayload,
  type JWTVerifyGetKey,
} from "jose";
import { JWT_ALGORITHMS } from "../../config/schema/constants.js";
import type { JwtConfig } from "../../config/schema/index.js";
import { ToolnexusError } from "../../core/errors.js";
import type { Logger } from "../../core/types.js";
import { VerifiedTokens } from "./token-cache.js";

/** Longer tokens are refused before any parsing: no identity provider issues one this big. */
export const MAX_TOKEN_CHARS = 8192;
/** How often an unknown `kid` may trigger a JWKS refetch, and how long a failed fetch is not retried. */
const JWKS_COOLDOWN_MS = 30_000;
/** Three base64url segments: the only shape a signed JWT has (a JWE has five). */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Fetching the JWKS failed (down, slow, not a key set), as opposed to a token it cannot verify. */
function isJwksFetchFailure(err: unknown): boolean {
  if (!(err instanceof errors.JOSEError)) return true;
  return err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || err.code === "ERR_JOSE_GENERIC";
}

/**
 * Verifies bearer tokens against the identity provider's JWKS, with `jose`.
 * Keys are cached; an unknown `kid` refetches at most every 30 s, so a rotated-in key
 * verifies and a removed one stops after that refetch. When the JWKS cannot be fetched the
 * keys last fetched keep verifying (and the fetch is not retried for 30 s, so a slow
 * endpoint does not slow every request); only when no key was ever fetched is it a 503.
 */
export class JwtVerifier {
  private readonly remote: ReturnType<typeof createRemoteJWKSet>;
  private readonly algorithms: string[];
  private downUntil = 0;
  /** jose records each successful JWKS fetch here (`uat`): the marker the token cache follows. */
  private readonly fetched: Partial<JWKSCacheInput> = {};
  private readonly verified = new VerifiedTokens();
  /** The local key set used while the JWKS is unreachable, and the fetch it was built from. */
  private fallback?: { fetchedAt: number | undefined; keys: JWTVerifyGetKey };

  constructor(
    private readonly cfg: JwtConfig,
    private readonly logger: Logger,
  ) {
    this.remote = createRemoteJWKSet(new URL(cfg.jwksUri), {
      cooldownDuration: JWKS_COOLDOWN_MS,
      timeoutDuration: cfg.jwksTimeoutMs,
      [jwksCache]: this.fetched as JWKSCacheInput,
    });
    this.algorithms = [...(cfg.algorithms ?? JWT_ALGORITHMS)];
    // Without an audience jose would accept a token minted for any other service.
    if (cfg.audience === undefined) throw new Error("auth.jwt.audience is required unless server.publicUrl is set");
  }

  /**
   * The payload of a token verified before and still trusted (see token-cache.ts), without a
   * promise: a client sending the same token on every call is answered synchronously.
   */
  cached(token: string): JWTPayload | undefined {
    return token.length > MAX_TOKEN_CHARS ? undefined : this.verified.get(token, this.fetched.uat);
  }

  /** The verified payload; throws UNAUTHORIZED (bad token) or AUTH_UNAVAILABLE (no key to check it with). */
  async verify(token: string): Promise<JWTPayload> {
    if (token.length > MAX_TOKEN_CHARS) throw invalidToken(`The token is longer than ${MAX_TOKEN_CHARS} characters`);
    if (!COMPACT_JWS.test(token)) throw invalidToken("The token is not a signed JWT (three base64url segments)");
    const cached = this.verified.get(token, this.fetched.uat);
    if (cached) return cached;
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: this.cfg.issuer,
        audience: this.cfg.audience,
        algorithms: this.algorithms,
        clockTolerance: this.cfg.clockTolerance,
        // A token without exp would never expire: refused unless the config says otherwise.
        requiredClaims: this.cfg.requireExp === false ? [] : ["exp"],
        ...(this.cfg.maxTokenAgeSeconds ? { maxTokenAge: this.cfg.maxTokenAgeSeconds } : {}),
      });
      if (typeof payload.sub !== "string" || payload.sub === "") throw invalidToken("The token has no subject (sub)");
      const maxAge = this.cfg.maxTokenAgeSeconds;
      this.verified.set(
        token,
        payload,
        this.fetched.uat,
        maxAge && typeof payload.iat === "number" ? (payload.iat + maxAge) * 1000 : undefined,
      );
      return payload;
    } catch (err) {
      throw err instanceof ToolnexusError ? err : invalidToken(reasonOf(err));
    }
  }

  /** The key for a token: the remote set, or the keys last fetched while the JWKS is unreachable. */
  private readonly key: JWTVerifyGetKey = async (header, token) => {
    if (Date.now() < this.downUntil) return this.lastKeys()(header, token);
    try {
      return await this.remote(header, token);
    } catch (err) {
      if (!isJwksFetchFailure(err)) throw err;
      this.downUntil = Date.now() + JWKS_COOLDOWN_MS;
      this.logger.warn(
        { jwksUri: this.cfg.jwksUri, err: (err as Error).message, cachedKeys: this.remote.jwks() !== undefined },
        "JWKS fetch failed",
      );
      return this.lastKeys()(header, token);
    }
  };

  /** The keys last fetched, as a local set built once per fetch; AUTH_UNAVAILABLE when none ever was. */
  private lastKeys(): JWTVerifyGetKey {
    if (this.fallback && this.fallback.fetchedAt === this.fetched.uat) return this.fallback.keys;
    const jwks = this.remote.jwks();
    if (!jwks)
      throw new ToolnexusError("AUTH_UNAVAILABLE", "The identity provider's keys cannot be fetched; try again later", {
        headers: { "retry-after": "30" },
      });
    this.fallback = { fetchedAt: this.fetched.uat, keys: createLocalJWKSet(jwks) };
    return this.fallback.keys;
  }
}

/** A caller-safe reason for a refused token (jose's messages name claims, never values of the token). */
function reasonOf(err: unknown): string {
  if (err instanceof errors.JWTExpired) return "The token has expired";
  if (err instanceof errors.JWTClaimValidationFailed && err.reason === "missing") return `The token has no "${err.claim}" claim`;
  if (err instanceof errors.JWTClaimValidationFailed) return `The token's "${err.claim}" claim is not accepted`;
  if (err instanceof errors.JOSEAlgNotAllowed) return "The token's algorithm is not accepted";
  if (err instanceof errors.JWSSignatureVerificationFailed) return "The token's signature is not valid";
  if (err instanceof errors.JWKSNoMatchingKey) return "No key of the identity provider matches the token";
  return "The token is malformed";
}

/** 401 with the RFC 6750 challenge for a token that was presented but refused. */
export function invalidToken(detail: string): ToolnexusError {
  return new ToolnexusError("UNAUTHORIZED", detail, { headers: { "www-authenticate": 'Bearer realm="toolnexus", error="invalid_token"' } });
}
