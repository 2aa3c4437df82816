import { Type } from "../http/typebox-lite.js";

/**
 * The wire shapes of `/me/credentials` (a connection's status, never a token, and a secret to
 * set) and of the gateway's OAuth client metadata document.
 */

/** One of the caller's connections in `GET /me/credentials`. */
const CredentialStatusSchema = Type.Object(
  {
    source: Type.String({ maxLength: 64, description: "The connection's name (the source's, or its upstreamAuth.source)." }),
    mode: Type.Union([Type.Literal("user-secret"), Type.Literal("user-oauth")]),
    status: Type.Union([Type.Literal("connected"), Type.Literal("not-connected"), Type.Literal("expired"), Type.Literal("unreadable")], {
      description: "unreadable: stored under another server.stateSecret; connect again.",
    }),
    scopes: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 256 })),
    connectedAt: Type.Optional(Type.String({ format: "date-time", maxLength: 64 })),
    expiresAt: Type.Optional(
      Type.String({ format: "date-time", maxLength: 64, description: "When the access token expires (it is refreshed when due)." }),
    ),
  },
  { additionalProperties: false },
);

/** `GET /me/credentials`. */
export const CredentialList = Type.Object(
  { credentials: Type.Array(CredentialStatusSchema, { maxItems: 10_000 }) },
  { additionalProperties: false },
);

/** `PUT /me/credentials/{source}`: a user secret. */
export const SecretBody = Type.Object(
  {
    secret: Type.String({
      minLength: 1,
      maxLength: 8192,
      description: "The secret sent upstream as the connection's header says. Never returned by any route.",
    }),
  },
  { additionalProperties: false },
);

/**
 * `GET /oauth/client-metadata.json`: the gateway's Client ID Metadata Document, what an
 * authorization server fetches when the gateway's client id is this document's URL.
 */
export const ClientMetadata = Type.Object(
  {
    client_id: Type.String({ maxLength: 2048, description: "This document's own URL: server.publicUrl + /oauth/client-metadata.json." }),
    client_name: Type.String({ maxLength: 64 }),
    client_uri: Type.Optional(Type.String({ maxLength: 2048, description: "server.publicUrl." })),
    redirect_uris: Type.Array(Type.String({ maxLength: 2048 }), {
      maxItems: 1,
      description: "The login's callback: server.publicUrl + /oauth/callback.",
    }),
    grant_types: Type.Array(Type.String({ maxLength: 32 }), { maxItems: 2 }),
    response_types: Type.Array(Type.String({ maxLength: 32 }), { maxItems: 1 }),
    token_endpoint_auth_method: Type.String({ maxLength: 32, description: "none: a public client; PKCE protects its codes." }),
  },
  { additionalProperties: false },
);
