import { decodeJwt } from "jose";
import * as oauth from "oauth4webapi";
import { ToolnexusError } from "../core/errors.js";
import type { Logger } from "../core/types.js";
import type { TokenExchangeAuth } from "../core/upstream-auth.js";
import { privateKeyJwt } from "./client-assertion.js";
import { ExpiringMap } from "../core/expiring-map.js";

const GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token";
const JWT_TYPE = "urn:ietf:params:oauth:token-type:jwt";
/** A cached token stops being served this long before it expires, so it never expires in flight. */
export const EXPIRY_MARGIN_MS = 30_000;
const DEFAULT_TIMEOUT_MS = 10_000;

/** Options of a {@link TokenExchanger} besides its config. */
export interface TokenExchangerOptions {
  /** auth.jwt.issuer: where the token endpoint is discovered when the config names none. */
  issuer?: string;
  now?: () => number;
}

/**
 * RFC 8693 token exchange for one upstream, with oauth4webapi: the caller's access token is the
 * `subject_token`, the gateway authenticates as its client (secret, or private_key_jwt signed
 * with jose), and the token issued for the upstream's audience is cached per caller token
 * until 30 s before it expires. Every failure is UPSTREAM_AUTH_FAILED with a reason that holds
 * no token; the caller's own token is never a fallback.
 */
export class TokenExchanger {
  private readonly cache: ExpiringMap<string>; // exchanged tokens, keyed by the caller's token
  private readonly inFlight = new Map<string, Promise<string>>();
  private readonly clientAuth: oauth.ClientAuth;
  private readonly client: oauth.Client;
  private metadata?: Promise<oauth.AuthorizationServer>;
  private readonly now: () => number;

  constructor(
    private readonly cfg: TokenExchangeAuth,
    private readonly opts: TokenExchangerOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.cache = new ExpiringMap<string>(this.now);
    this.client = { client_id: cfg.clientId };
    this.clientAuth = cfg.privateKeyJwt
      ? privateKeyJwt(cfg.privateKeyJwt)
      : cfg.clientAuthMethod === "client_secret_post"
        ? oauth.ClientSecretPost(cfg.clientSecret ?? "")
        : oauth.ClientSecretBasic(cfg.clientSecret ?? "");
  }

  /** The cached token for `subject`, without a promise: the hot path of every call after the first. */
  cached(subject: string): string | undefined {
    return this.cache.get(subject);
  }

  /**
   * A token for the upstream on behalf of the holder of `subject`; concurrent calls for one
   * subject share one exchange. It is bounded by `timeoutMs` only, not by any one call's signal:
   * a caller that goes away must not fail the others waiting on the same exchange (each call
   * stops waiting at its own abort).
   */
  token(subject: string, log?: Logger): Promise<string> {
    const hit = this.cache.get(subject);
    if (hit !== undefined) return Promise.resolve(hit);
    let pending = this.inFlight.get(subject);
    if (!pending) {
      pending = this.exchange(subject, log).finally(() => this.inFlight.delete(subject));
      this.inFlight.set(subject, pending);
    }
    return pending;
  }

  private async exchange(subject: string, log: Logger | undefined): Promise<string> {
    const timeoutMs = this.cfg.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const bound = AbortSignal.timeout(timeoutMs);
    try {
      const as = await this.server(bound);
      const params = new URLSearchParams({ subject_token: subject, subject_token_type: ACCESS_TOKEN, requested_token_type: ACCESS_TOKEN });
      if (this.cfg.audience) params.set("audience", this.cfg.audience);
      if (this.cfg.resource) params.set("resource", this.cfg.resource);
      if (this.cfg.scope) params.set("scope", this.cfg.scope);
      const response = await oauth.genericTokenEndpointRequest(as, this.client, this.clientAuth, GRANT, params, {
        signal: bound,
        [oauth.allowInsecureRequests]: isHttp(as.token_endpoint),
      });
      const result = await oauth.processGenericTokenEndpointResponse(as, this.client, response);
      const token = result.access_token;
      const until = this.checked(result, token);
      if (until !== undefined) this.cache.set(subject, token, until - EXPIRY_MARGIN_MS);
      return token;
    } catch (err) {
      const reason = reasonOf(err, bound, timeoutMs);
      // The OAuth error's description helps the operator; no token is in it or in the reason.
      const description = err instanceof oauth.ResponseBodyError ? err.error_description?.slice(0, 200) : undefined;
      log?.warn({ reason, ...(description ? { description } : {}) }, "upstream token exchange failed");
      throw new ToolnexusError("UPSTREAM_AUTH_FAILED", `The token exchange for this tool's upstream failed: ${reason}`);
    }
  }

  /**
   * Refuses a token the upstream should not get (another audience, a refresh token) and says
   * until when it may be served: `expires_in`, else the JWT's `exp`; undefined = not cached.
   */
  private checked(result: oauth.TokenEndpointResponse, token: string): number | undefined {
    const type = result.issued_token_type;
    if (type !== undefined && type !== ACCESS_TOKEN && type !== JWT_TYPE)
      throw new Refused(`it issued a ${String(type)}, not an access token`);
    let claims: { aud?: string | string[]; exp?: number } | undefined;
    try {
      claims = decodeJwt(token);
    } catch {
      claims = undefined; // An opaque token: its audience is the authorization server's word.
    }
    const want = this.cfg.audience ?? this.cfg.resource;
    if (claims && want !== undefined) {
      const aud = Array.isArray(claims.aud) ? claims.aud : claims.aud === undefined ? [] : [claims.aud];
      if (!aud.includes(want)) throw new Refused("the issued token is for another audience");
    }
    if (typeof result.expires_in === "number") return this.now() + result.expires_in * 1000;
    return typeof claims?.exp === "number" ? claims.exp * 1000 : undefined;
  }

  /** The authorization server: the configured token endpoint, or the issuer's metadata (fetched once; again after a failure). */
  private server(signal: AbortSignal): Promise<oauth.AuthorizationServer> {
    const { tokenEndpoint } = this.cfg;
    const issuer = this.opts.issuer;
    if (tokenEndpoint) return Promise.resolve({ issuer: issuer ?? new URL(tokenEndpoint).origin, token_endpoint: tokenEndpoint });
    if (!issuer) return Promise.reject(new Refused("no token endpoint is configured and auth.jwt names no issuer"));
    this.metadata ??= discover(new URL(issuer), signal).catch((err: unknown) => {
      this.metadata = undefined;
      throw err;
    });
    return this.metadata;
  }
}

/** A decision of ours (as opposed to a failure of the authorization server): its message is the reason. */
class Refused extends Error {}

/** OpenID Connect discovery, then RFC 8414 (oauth-authorization-server) when the first has nothing. */
async function discover(issuer: URL, signal: AbortSignal): Promise<oauth.AuthorizationServer> {
  let last: unknown;
  for (const algorithm of ["oidc", "oauth2"] as const) {
    try {
      const res = await oauth.discoveryRequest(issuer, { algorithm, signal, [oauth.allowInsecureRequests]: issuer.protocol === "http:" });
      const as = await oauth.processDiscoveryResponse(issuer, res);
      if (!as.token_endpoint) throw new Refused("the issuer's metadata names no token endpoint");
      return as;
    } catch (err) {
      if (signal.aborted || err instanceof Refused) throw err;
      last = err;
    }
  }
  const status = statusOf(last);
  throw new Refused(`the issuer's metadata cannot be read (${status === undefined ? "unreachable or not metadata" : `HTTP ${status}`})`);
}

/** The HTTP status oauth4webapi attached to a non-conforming response, if any. */
function statusOf(err: unknown): number | undefined {
  if (!(err instanceof oauth.OperationProcessingError)) return undefined;
  const status = (err.cause as { status?: unknown } | undefined)?.status;
  return typeof status === "number" ? status : undefined;
}

function isHttp(url: string | undefined): boolean {
  return url?.startsWith("http:") === true;
}

/** Why an exchange failed, in words fit for a caller: a status, an OAuth error code, a timeout; never a body. */
function reasonOf(err: unknown, bound: AbortSignal, timeoutMs: number): string {
  if (err instanceof Refused) return err.message;
  if (err instanceof oauth.ResponseBodyError) return `the authorization server refused it (${err.error}, HTTP ${err.status})`;
  if (err instanceof oauth.WWWAuthenticateChallengeError)
    return `the authorization server refused the gateway's client (HTTP ${err.status})`;
  if (bound.aborted) return `no answer within ${timeoutMs} ms`;
  if (err instanceof oauth.OperationProcessingError) {
    const status = statusOf(err);
    if (status !== undefined) return `the token endpoint answered HTTP ${status}`;
    return `the authorization server's answer is not usable (${err.code ?? "invalid response"})`;
  }
  if (err instanceof oauth.UnsupportedOperationError) return "the authorization server's answer is not usable (unsupported token type)";
  return "the authorization server cannot be reached";
}
