import { Type } from "../http/typebox-lite.js";

/** The wire shapes of `/me/credentials`: a connection's status (never a token) and a secret to set. */

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
