/**
 * How a remote source's upstream learns who the caller is (a source's `upstreamAuth`, see
 * docs/identity-and-tracing.md). Plain data: the exchange itself is done by the service.
 */
export type UpstreamAuth = PassthroughAuth | TokenExchangeAuth;

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
