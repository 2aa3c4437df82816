/**
 * How a remote source's upstream learns who the caller is (a source's `upstreamAuth`, see
 * docs/identity-and-tracing.md). Plain data: the exchange itself is done by the service.
 */
export type UpstreamAuth = PassthroughAuth | TokenExchangeAuth | UserSecretAuth | UserOAuthAuth;

/** The modes whose credential belongs to each caller and is kept in the vault (see docs/user-credentials.md). */
export type UserAuth = UserSecretAuth | UserOAuthAuth;

/** The JWT caller's own token goes upstream (what `forwardAuth: true` means). */
interface PassthroughAuth {
  mode: "passthrough";
}

/** An RFC 8693 token exchange: the upstream gets a token issued for it, for the caller. */
export interface TokenExchangeAuth {
  mode: "exchange";
  /** Default: the `token_endpoint` of the issuer's metadata (auth.jwt.issuer). */
  tokenEndpoint?: string;
  /** The `audience` parameter; exactly one of audience and resource. */
  audience?: string;
  /** The `resource` parameter (RFC 8707). */
  resource?: string;
  scope?: string;
  clientId: string;
  /** Client authentication by secret; exactly one of clientSecret and privateKeyJwt. */
  clientSecret?: string;
  /** How the secret is sent; default client_secret_basic. */
  clientAuthMethod?: "client_secret_basic" | "client_secret_post";
  /** Client authentication by a signed assertion (RFC 7523). */
  privateKeyJwt?: { key: string; kid?: string; alg?: string };
  /** Bound of one exchange (discovery included); default 10000. */
  timeoutMs?: number;
}

/** A static secret each caller sets once (`PUT /me/credentials/{source}`), sent as a header. */
export interface UserSecretAuth {
  mode: "user-secret";
  /** The connection's name in `/me/credentials` (default: the source's name). */
  source: string;
  /** Default `Authorization`. */
  header?: string;
  /** Where `{secret}` goes; default `Bearer {secret}`. */
  format?: string;
}

/** The gateway as an OAuth client of the upstream's own authorization server, for each caller. */
export interface UserOAuthAuth {
  mode: "user-oauth";
  /** The connection's name in `/me/credentials` (default: the source's name). */
  source: string;
  /** The upstream's URL: its protected-resource metadata and the `resource` parameter come from it. */
  resource: string;
  /**
   * A pre-registered client; without it, the gateway's Client ID Metadata Document where the
   * authorization server supports them, else RFC 7591 dynamic registration.
   */
  clientId?: string;
  clientSecret?: string;
  scopes?: string[];
  /** The issuer, when the upstream publishes no protected-resource metadata. */
  authorizationServer?: string;
  /** Bound of one request to the authorization server; default 10000. */
  timeoutMs?: number;
}

/** True for the modes whose credential each caller brings (kept in the vault). */
export function isUserAuth(auth: UpstreamAuth | undefined): auth is UserAuth {
  return auth?.mode === "user-secret" || auth?.mode === "user-oauth";
}
