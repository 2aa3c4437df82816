import { Type, type Static } from "@sinclair/typebox";
import { JWT_ALGORITHMS } from "./constants.js";

const HTTP_URL = "^[hH][tT][tT][pP][sS]?://";

/** `upstreamAuth: { mode: exchange }` — an RFC 8693 token exchange per caller and upstream. */
const TokenExchange = Type.Object(
  {
    mode: Type.Literal("exchange"),
    tokenEndpoint: Type.Optional(
      Type.String({
        pattern: HTTP_URL,
        description: "Default: the token_endpoint of auth.jwt.issuer's metadata (openid-configuration or oauth-authorization-server).",
      }),
    ),
    audience: Type.Optional(
      Type.String({ minLength: 1, description: "The audience the upstream's token is for (exactly one of audience and resource)." }),
    ),
    resource: Type.Optional(
      Type.String({
        pattern: HTTP_URL,
        description: "RFC 8707 resource indicator of the upstream (exactly one of audience and resource).",
      }),
    ),
    scope: Type.Optional(Type.String({ minLength: 1, description: "Space-separated scopes to ask for." })),
    clientId: Type.String({ minLength: 1, description: "The gateway's client at the authorization server." }),
    clientSecret: Type.Optional(
      Type.String({ minLength: 1, description: "Use ${file:…} or ${VAR}. Exactly one of clientSecret and privateKeyJwt." }),
    ),
    clientAuthMethod: Type.Optional(
      Type.Union([Type.Literal("client_secret_basic"), Type.Literal("client_secret_post")], {
        description: "How clientSecret is sent. Default client_secret_basic.",
      }),
    ),
    privateKeyJwt: Type.Optional(
      Type.Object(
        {
          key: Type.String({ minLength: 1, description: "The private key: PKCS#8 PEM or a JWK (JSON). Use ${file:…}." }),
          kid: Type.Optional(Type.String({ minLength: 1, description: "Key id put in the assertion's header. Default: the JWK's kid." })),
          alg: Type.Optional(
            Type.Union(
              JWT_ALGORITHMS.map((a) => Type.Literal(a)),
              { description: "Default: the JWK's alg, else RS256." },
            ),
          ),
        },
        { additionalProperties: false, description: "Client authentication by a signed assertion (private_key_jwt, RFC 7523)." },
      ),
    ),
    timeoutMs: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 60_000, description: "Bound of one exchange, metadata discovery included. Default 10000." }),
    ),
  },
  { additionalProperties: false },
);

/**
 * `upstreamAuth:` on a remote MCP server, an `http` tool, an `openapi` source or an agent: what
 * a JWT caller's call sends upstream. API keys never go upstream in either mode.
 */
export const UpstreamAuthSection = Type.Union(
  [TokenExchange, Type.Object({ mode: Type.Literal("passthrough") }, { additionalProperties: false })],
  {
    description:
      "exchange: an RFC 8693 token exchange per caller and upstream (cached until 30 s before expiry); passthrough: the caller's own token (what forwardAuth: true means; the MCP spec forbids it).",
  },
);

export type UpstreamAuthConfig = Static<typeof UpstreamAuthSection>;

/**
 * `forwardAuth:` on a remote MCP server, an `http` tool, an `openapi` source or an agent: the
 * older spelling of `upstreamAuth: { mode: passthrough }`, described once for all four.
 */
export const ForwardAuthField = Type.Boolean({
  description:
    "Send a JWT caller's own bearer token upstream as Authorization instead of the configured one (never an API key; for an MCP server, remote servers only). Alias of upstreamAuth: { mode: passthrough } (warned at load).",
});
