// Constants of the config schema that runtime code needs too: a module without TypeBox, so
// that importing one of them does not load the whole schema (and TypeBox) at start-up.

/** The characters of a bundle name: it is a URL segment (`/bundles/{name}/mcp`). */
export const BUNDLE_NAME = "^[A-Za-z0-9_-]{1,64}$";

/**
 * Signature algorithms a token may use. Asymmetric only: keys come from a public JWKS, so an
 * HMAC algorithm would let anyone holding the public key mint tokens, and `none` is no signature.
 */
export const JWT_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"] as const;
