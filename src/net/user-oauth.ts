import * as oauth from "oauth4webapi";
import { ToolnexusError } from "../core/errors.js";
import type { UserOAuthAuth } from "../core/upstream-auth.js";
import { failed, reasonOf } from "./user-oauth-errors.js";
import { asClient, isHttp, issuedBy, resolveServer, type ResolvedServer, type TokenOrigin } from "./user-oauth-server.js";

export { UserOAuthError } from "./user-oauth-errors.js";
export type { TokenOrigin } from "./user-oauth-server.js";

const DEFAULT_TIMEOUT_MS = 10_000;

/** The tokens an authorization server issued for one caller (never logged, only kept in the vault). */
export interface IssuedTokens {
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms; absent when the server said nothing. */
  expiresAt?: number;
  scope?: string;
}

/** The tokens of a completed login, with the server and client that issued them (kept beside them in the vault). */
export interface LoginTokens extends IssuedTokens {
  issuer: string;
  clientId: string;
}

/** What a login needs to start, and to finish at the callback. */
export interface LoginStart {
  /** The URL to send the browser to. */
  url: string;
  issuer: string;
  /** The client the login was started with: the callback must exchange the code as that client. */
  clientId: string;
}

/** How the gateway is known beyond one source's config. */
export interface UserOAuthClientOptions {
  /**
   * The URL of the gateway's Client ID Metadata Document (server.publicUrl +
   * /oauth/client-metadata.json): its client id at a server that fetches such documents.
   */
  clientMetadataUrl?: string;
  /**
   * The callback of every login (server.publicUrl + /oauth/callback): what a client registered
   * here (RFC 7591) names as its redirect URI. With it, a replica that has not started a login
   * yet can still register its client to refresh or revoke tokens another replica's login got.
   */
  callbackUrl?: string;
  now?: () => number;
}

/**
 * The gateway as an OAuth 2.1 client of one upstream's own authorization server, for each
 * caller (oauth4webapi does the protocol): discovery as the MCP authorization spec says (the
 * upstream's protected-resource metadata, RFC 9728, then the issuer's OIDC or RFC 8414
 * metadata); a pre-registered client, else the gateway's Client ID Metadata Document where
 * the server fetches one, else RFC 7591 dynamic registration; authorization code with PKCE
 * (S256) and the `resource` parameter (RFC 8707), refresh, revocation (RFC 7009), each as the
 * client that issued the tokens. Every failure is UPSTREAM_AUTH_FAILED with a reason that
 * holds no token.
 */
export class UserOAuthClient {
  private server?: Promise<ResolvedServer>;

  private readonly now: () => number;

  constructor(
    private readonly cfg: UserOAuthAuth,
    private readonly opts: UserOAuthClientOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
  }

  /** The id of the client a login whose callback is `redirectUri` starts with: its callback must finish as the same. */
  async clientId(redirectUri: string): Promise<string> {
    return (await this.resolve(redirectUri)).client.client_id;
  }

  /** The authorization URL for a login whose callback is `redirectUri`, with its PKCE challenge. */
  async start(redirectUri: string, state: string, verifier: string): Promise<LoginStart> {
    const { as, client, scopes } = await this.resolve(redirectUri);
    if (!as.authorization_endpoint) throw failed("the authorization server's metadata names no authorization endpoint");
    const url = new URL(as.authorization_endpoint);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("client_id", client.client_id);
    url.searchParams.set("redirect_uri", redirectUri);
    url.searchParams.set("state", state);
    url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set("code_challenge_method", "S256");
    url.searchParams.set("resource", this.cfg.resource);
    if (scopes.length > 0) url.searchParams.set("scope", scopes.join(" "));
    return { url: url.toString(), issuer: as.issuer, clientId: client.client_id };
  }

  /**
   * Exchanges the callback's code (checked against `state`) for tokens, as `clientId`: the
   * client the login started with (a code is bound to it).
   */
  async finish(callback: URLSearchParams, state: string, redirectUri: string, verifier: string, clientId?: string): Promise<LoginTokens> {
    return this.guarded("the login", async (signal) => {
      const resolved = await this.resolve(redirectUri);
      const { as } = resolved;
      // The code is bound to the client the login started with: exchanged as that one.
      const { client, auth } = asClient(resolved, clientId, () =>
        failed("the login was started with another client of the authorization server; start it again"),
      );
      const params = oauth.validateAuthResponse(as, client, callback, state);
      const res = await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier, {
        signal,
        additionalParameters: { resource: this.cfg.resource },
        [oauth.allowInsecureRequests]: isHttp(as.token_endpoint),
      });
      const tokens = this.tokens(await oauth.processAuthorizationCodeResponse(as, client, res, { requireIdToken: false }));
      return { ...tokens, issuer: as.issuer, clientId: client.client_id };
    });
  }

  /**
   * New tokens for a refresh token (the server may rotate it: the new one replaces the old),
   * from the client that issued it (`from`; unknown for entries stored before it was kept).
   */
  async refresh(refreshToken: string, from: TokenOrigin = {}): Promise<IssuedTokens> {
    return this.guarded("the refresh", async (signal) => {
      const resolved = await this.resolve(undefined);
      const { as } = resolved;
      const { client, auth } = issuedBy(resolved, from, "refreshed");
      const res = await oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, {
        signal,
        additionalParameters: { resource: this.cfg.resource },
        [oauth.allowInsecureRequests]: isHttp(as.token_endpoint),
      });
      const t = this.tokens(await oauth.processRefreshTokenResponse(as, client, res));
      return { ...t, refreshToken: t.refreshToken ?? refreshToken };
    });
  }

  /** Revokes `token` (issued as `from` says) where the server offers revocation (RFC 7009); false when it offers none. */
  async revoke(token: string, hint: "refresh_token" | "access_token", from: TokenOrigin = {}): Promise<boolean> {
    return this.guarded("the revocation", async (signal) => {
      const resolved = await this.resolve(undefined);
      const { as } = resolved;
      if (!as.revocation_endpoint) return false;
      const { client, auth } = issuedBy(resolved, from, "revoked");
      const res = await oauth.revocationRequest(as, client, auth, token, {
        signal,
        additionalParameters: { token_type_hint: hint },
        [oauth.allowInsecureRequests]: isHttp(as.revocation_endpoint),
      });
      await oauth.processRevocationResponse(res);
      return true;
    });
  }

  private tokens(r: oauth.TokenEndpointResponse): IssuedTokens {
    return {
      accessToken: r.access_token,
      ...(r.refresh_token ? { refreshToken: r.refresh_token } : {}),
      ...(typeof r.expires_in === "number" ? { expiresAt: this.now() + r.expires_in * 1000 } : {}),
      ...(r.scope ? { scope: r.scope } : {}),
    };
  }

  /** The authorization server and the gateway's client there, found once (again after a failure). */
  private resolve(redirectUri: string | undefined) {
    const callback = redirectUri ?? this.opts.callbackUrl;
    this.server ??= this.guarded("the discovery", (signal) => resolveServer(this.cfg, this.opts.clientMetadataUrl, callback, signal)).catch(
      (err: unknown) => {
        this.server = undefined;
        throw err;
      },
    );
    return this.server;
  }

  private async guarded<T>(what: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const timeoutMs = this.cfg.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      return await fn(signal);
    } catch (err) {
      if (err instanceof ToolnexusError) throw err;
      throw failed(`${what} failed: ${reasonOf(err, signal, timeoutMs)}`, err instanceof oauth.ResponseBodyError ? err.error : undefined);
    }
  }
}
