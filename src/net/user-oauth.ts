import * as oauth from "oauth4webapi";
import { ToolnexusError } from "../core/errors.js";
import type { UserOAuthAuth } from "../core/upstream-auth.js";

const DEFAULT_TIMEOUT_MS = 10_000;

/** The tokens an authorization server issued for one caller (never logged, only kept in the vault). */
export interface IssuedTokens {
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms; absent when the server said nothing. */
  expiresAt?: number;
  scope?: string;
}

/** Which authorization server and client issued tokens: only that client may refresh or revoke them. */
export interface TokenOrigin {
  issuer?: string;
  clientId?: string;
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

// Where a Client ID Metadata Document may be served over plain http: nobody else can sit on
// the path to a loopback host, and tests and a gateway on a developer's machine run there.
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

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
    this.server ??= this.guarded("the discovery", (signal) => this.discover(signal, callback)).catch((err: unknown) => {
      this.server = undefined;
      throw err;
    });
    return this.server;
  }

  private async discover(signal: AbortSignal, redirectUri: string | undefined): Promise<ResolvedServer> {
    let issuer = this.cfg.authorizationServer;
    let scopes = this.cfg.scopes;
    if (issuer === undefined) {
      const resource = new URL(this.cfg.resource);
      const res = await oauth.resourceDiscoveryRequest(resource, { signal, [oauth.allowInsecureRequests]: resource.protocol === "http:" });
      const rs = await oauth.processResourceDiscoveryResponse(resource, res);
      issuer = rs.authorization_servers?.[0];
      if (!issuer) throw failed("the upstream's protected-resource metadata names no authorization server");
      scopes ??= rs.scopes_supported ? [...rs.scopes_supported] : undefined;
    }
    const as = await discoverServer(new URL(issuer), signal);
    const { client, auth, registered } = await this.client(as, signal, redirectUri, scopes);
    return { as, client, auth, registered, scopes: scopes ?? [] };
  }

  /**
   * The gateway's client at `as`, in this order: the pre-registered one; the gateway's Client
   * ID Metadata Document where the server says it fetches them; one registered now (RFC 7591)
   * for this gateway's callback.
   */
  private async client(
    as: oauth.AuthorizationServer,
    signal: AbortSignal,
    redirectUri: string | undefined,
    scopes: string[] | undefined,
  ): Promise<GatewayClient & { registered: boolean }> {
    const { clientId, clientSecret } = this.cfg;
    if (clientId !== undefined) {
      const auth = clientSecret === undefined ? oauth.None() : oauth.ClientSecretBasic(clientSecret);
      return { client: { client_id: clientId }, auth, registered: false };
    }
    // A public client whose id is the document's URL: the server fetches the document, nothing
    // is registered, and every replica (and every restart) is the same client.
    const metadataUrl = this.opts.clientMetadataUrl;
    if (as.client_id_metadata_document_supported === true && metadataUrl !== undefined && isClientIdUrl(metadataUrl))
      return { client: { client_id: metadataUrl }, auth: oauth.None(), registered: false };
    if (!as.registration_endpoint) throw failed("no clientId is configured and the authorization server offers no dynamic registration");
    // "invalid_client": the caller is asked to log in again, which registers a client anew.
    if (redirectUri === undefined) throw failed("the dynamically registered client was lost; log in again", "invalid_client");
    const res = await oauth.dynamicClientRegistrationRequest(
      as,
      {
        client_name: "toolnexus",
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        ...(scopes && scopes.length > 0 ? { scope: scopes.join(" ") } : {}),
      },
      { signal, [oauth.allowInsecureRequests]: isHttp(as.registration_endpoint) },
    );
    const client = await oauth.processDynamicClientRegistrationResponse(res);
    return { client: { client_id: client.client_id }, auth: oauth.None(), registered: true };
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

/** An OAuth failure; `oauthError` is the server's error code (invalid_grant means: log in again). */
export class UserOAuthError extends ToolnexusError {
  constructor(
    message: string,
    readonly oauthError?: string,
  ) {
    super("UPSTREAM_AUTH_FAILED", message);
  }
}

function failed(reason: string, oauthError?: string): UserOAuthError {
  return new UserOAuthError(`The upstream login failed: ${reason}`, oauthError);
}

/** OpenID Connect discovery, then RFC 8414. */
async function discoverServer(issuer: URL, signal: AbortSignal): Promise<oauth.AuthorizationServer> {
  let last: unknown;
  for (const algorithm of ["oidc", "oauth2"] as const) {
    try {
      const res = await oauth.discoveryRequest(issuer, { algorithm, signal, [oauth.allowInsecureRequests]: issuer.protocol === "http:" });
      return await oauth.processDiscoveryResponse(issuer, res);
    } catch (err) {
      if (signal.aborted) throw err;
      last = err;
    }
  }
  throw last;
}

/** A client of the authorization server, and how it authenticates at the token endpoint. */
interface GatewayClient {
  client: oauth.Client;
  auth: oauth.ClientAuth;
}

/** The authorization server and the gateway's client there. */
interface ResolvedServer extends GatewayClient {
  as: oauth.AuthorizationServer;
  /** The client was registered by this replica (RFC 7591): every replica has one of its own. */
  registered: boolean;
  scopes: string[];
}

/**
 * The client to act as for a login or tokens of `clientId`: the one in force when it is that
 * one (or `clientId` is unknown). Where the client in force was registered dynamically, each
 * replica (and each restart) has registered its own public client for the same callback, so
 * one of them may have started the login or received the tokens: act as that client, which
 * needs no secret. `clientId` is the gateway's own record (sealed in the login's state, or
 * kept in the vault beside the tokens), never the caller's. Otherwise `refused()`.
 */
function asClient(resolved: ResolvedServer, clientId: string | undefined, refused: () => Error): GatewayClient {
  if (clientId === undefined || clientId === resolved.client.client_id) return resolved;
  if (resolved.registered) return { client: { client_id: clientId }, auth: oauth.None() };
  throw refused();
}

/**
 * The client to refresh or revoke tokens as: the one that received them ({@link asClient}).
 * Refuses to send a token to another server, or as another client, than the one that issued it.
 */
function issuedBy(resolved: ResolvedServer, from: TokenOrigin, what: string): GatewayClient {
  // "invalid_client": the caller is asked to log in again, with the client in force now.
  const refused = () => failed(`the tokens were issued to another client than the one in force; they are not ${what}`, "invalid_client");
  if (from.issuer !== undefined && from.issuer !== resolved.as.issuer) throw refused();
  return asClient(resolved, from.clientId, refused);
}

/**
 * True for a URL an authorization server can take as a client id naming a metadata document:
 * https with a path, no fragment and no user info, as the document's specification requires.
 * Plain http is allowed for a loopback host only (see LOOPBACK_HOSTS).
 */
function isClientIdUrl(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.pathname === "/" || u.hash !== "" || u.username !== "" || u.password !== "") return false;
  return u.protocol === "https:" || (u.protocol === "http:" && LOOPBACK_HOSTS.has(u.hostname));
}

function isHttp(url: string | undefined): boolean {
  return url?.startsWith("http:") === true;
}

/** Why a request to the authorization server failed, in words fit for a caller: never a body or a token. */
function reasonOf(err: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted) return `the authorization server did not answer within ${timeoutMs} ms`;
  if (err instanceof oauth.ResponseBodyError) return `the authorization server refused it (${err.error}, HTTP ${err.status})`;
  if (err instanceof oauth.AuthorizationResponseError) return `the authorization server answered ${err.error}`;
  if (err instanceof oauth.OperationProcessingError) {
    const status = (err.cause as { status?: unknown } | undefined)?.status;
    return typeof status === "number"
      ? `the authorization server answered HTTP ${status}`
      : "the authorization server's answer was not valid";
  }
  return "the authorization server is unreachable";
}
