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

const SOURCE = Type.Optional(
  Type.String({
    pattern: "^[A-Za-z0-9_.-]{1,64}$",
    description:
      "The connection's name in /me/credentials; sources that name the same one share the caller's credential. Default: the MCP server's name, the http tool's name, the openapi prefix, the agent's key.",
  }),
);

/** `upstreamAuth: { mode: user-secret }` — a static secret each caller sets once. */
const UserSecret = Type.Object(
  {
    mode: Type.Literal("user-secret"),
    source: SOURCE,
    header: Type.Optional(
      Type.String({ pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$", description: "The header the secret goes in. Default Authorization." }),
    ),
    format: Type.Optional(
      Type.String({
        pattern: "\\{secret\\}",
        maxLength: 256,
        description: "The header's value, {secret} replaced by the caller's secret. Default `Bearer {secret}`.",
      }),
    ),
  },
  { additionalProperties: false },
);

/** `upstreamAuth: { mode: user-oauth }` — the gateway as an OAuth client of the upstream's authorization server, per caller. */
const UserOAuth = Type.Object(
  {
    mode: Type.Literal("user-oauth"),
    source: SOURCE,
    clientId: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "A client registered for the gateway. Default: the gateway's Client ID Metadata Document (server.publicUrl + /oauth/client-metadata.json) where the authorization server supports them, else RFC 7591 dynamic registration.",
      }),
    ),
    clientSecret: Type.Optional(
      Type.String({ minLength: 1, description: "The client's secret, if confidential. Use ${file:…} or ${VAR}." }),
    ),
    scopes: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { description: "Scopes to ask for. Default: the upstream's scopes_supported." }),
    ),
    authorizationServer: Type.Optional(
      Type.String({
        pattern: HTTP_URL,
        description: "The issuer, for an upstream that publishes no protected-resource metadata (RFC 9728).",
      }),
    ),
    timeoutMs: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 60_000, description: "Bound of one request to the authorization server. Default 10000." }),
    ),
  },
  { additionalProperties: false },
);

/**
 * `upstreamAuth:` on a remote MCP server, an `http` tool, an `openapi` source or an agent: what
 * a JWT caller's call sends upstream. API keys never go upstream in either mode.
 */
export const UpstreamAuthSection = Type.Union(
  [TokenExchange, Type.Object({ mode: Type.Literal("passthrough") }, { additionalProperties: false }), UserSecret, UserOAuth],
  {
    description:
      "exchange: an RFC 8693 token exchange per caller and upstream (cached until 30 s before expiry); passthrough: the caller's own token (what forwardAuth: true means; the MCP spec forbids it); user-secret: a secret each caller sets once; user-oauth: each caller logs in at the upstream's own authorization server.",
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
