import { Type } from "@sinclair/typebox";

/**
 * `vault:` — where each caller's upstream credentials (user-secret and user-oauth) are kept,
 * encrypted with a key derived from server.stateSecret. With `redis:` they go to Redis (every
 * replica sees them) and this section is not needed.
 */
export const VaultSection = Type.Object(
  {
    file: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "The vault file when there is no redis: (relative to the config file; written with mode 0600). Default: kept in memory (lost at restart).",
      }),
    ),
  },
  { additionalProperties: false },
);
