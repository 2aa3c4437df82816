import { Type, type Static } from "@sinclair/typebox";
import { JWT_ALGORITHMS } from "./constants.js";
import { stringList } from "./string-list.js";

/** `auth.jwt:` — bearer tokens from the organisation's identity provider. */
export const JwtSection = Type.Object(
  {
    issuer: Type.String({ minLength: 1, description: "Expected `iss` claim." }),
    audience: Type.Optional(
      Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })], {
        description:
          "Expected `aud` (one of these). Default, with server.publicUrl: this resource's URLs (publicUrl and publicUrl + the MCP path); required without it.",
      }),
    ),
    jwksUri: Type.String({ pattern: "^[hH][tT][tT][pP][sS]?://", description: "The identity provider's JWKS endpoint." }),
    algorithms: Type.Optional(
      Type.Array(Type.Union(JWT_ALGORITHMS.map((a) => Type.Literal(a))), {
        minItems: 1,
        description: "Accepted `alg` values. Default: every asymmetric algorithm.",
      }),
    ),
    clockTolerance: Type.Integer({ minimum: 0, maximum: 300, default: 30, description: "Seconds of clock skew accepted on exp/nbf/iat." }),
    requireExp: Type.Boolean({
      default: true,
      description:
        "Refuse a token without an `exp` claim: it would be valid forever. Turn off only for an identity provider that issues none, and bound such tokens with maxTokenAgeSeconds.",
    }),
    maxTokenAgeSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: "Refuse a token issued (`iat`) longer ago than this, or without `iat`, whatever its `exp`.",
      }),
    ),
    groupsClaim: Type.String({ minLength: 1, default: "groups", description: "Claim holding the caller's groups (an array or a string)." }),
    jwksTimeoutMs: Type.Integer({ minimum: 100, maximum: 30_000, default: 3000, description: "Bound of one JWKS fetch." }),
  },
  { additionalProperties: false },
);

/**
 * One `auth.policies` entry: which JWT callers it matches and the tools it grants. Every
 * criterion given must match (a caller in one of `groups` AND with one of `scopes`…); a
 * policy with no criterion matches every authenticated JWT caller.
 */
export const Policy = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1, description: "Named in audit log lines. Default `policies[<index>]`." })),
    groups: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
    scopes: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: "From the `scope` string or the `scp` array." }),
    ),
    subjects: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: "Exact `sub` values." })),
    tools: Type.Array(Type.String(), { description: "Glob patterns over tool names." }),
    resources: stringList(
      "Glob patterns over the catalog's resource URIs and URI templates this policy shows (`*`: any characters). Default: the resources of the servers whose tools it grants.",
    ),
    prompts: stringList(
      "Glob patterns over the catalog's prompt names this policy shows. Default: the prompts of the servers whose tools it grants.",
    ),
    requireScopes: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        description:
          "Scopes a token must carry (all of them) to call this policy's tools; a caller matching the policy without them still lists the tools and gets 403 insufficient_scope naming them.",
      }),
    ),
    operator: Type.Optional(Type.Boolean({ description: "May read /status and /metrics." })),
    bundles: stringList("Bundles whose tools this policy grants (beside `tools`)."),
  },
  { additionalProperties: false },
);

export type JwtConfig = Static<typeof JwtSection>;
export type PolicyConfig = Static<typeof Policy>;
