import type { Sealer } from "../../core/seal.js";

/** The purpose a caller's token is sealed for: a token sealed for anything else does not open here. */
const PURPOSE = "caller-token";

/**
 * The caller's bearer sealed for an execution that must act for it upstream (a tool with
 * `upstreamAuth`), so the replica that runs the job can exchange or forward it while Redis
 * holds only ciphertext. It expires with the token (`exp`; `fallbackTtlMs` for a token
 * without one) and is bound to its owner: a sealed token moved to another caller's job does not open.
 */
export function sealCallerToken(sealer: Sealer, owner: string, bearer: string, fallbackTtlMs: number): string {
  const exp = expiryOf(bearer);
  const ttl = typeof exp === "number" ? exp * 1000 - Date.now() : fallbackTtlMs;
  return sealer.seal(PURPOSE, { owner, bearer }, Math.max(ttl, 0));
}

// The `exp` claim of a JWT caller's token (verified by jose already), or undefined. Read here
// rather than with jose's decodeJwt: importing jose costs ~50 modules at start-up without auth.jwt.
function expiryOf(jwt: string): number | undefined {
  const parts = jwt.split(".");
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"));
    const exp = typeof claims === "object" && claims !== null ? (claims as { exp?: unknown }).exp : undefined;
    return typeof exp === "number" ? exp : undefined;
  } catch {
    return undefined;
  }
}

/** The bearer sealed for `owner`, or undefined when it expired, was altered or belongs to someone else. */
export function openCallerToken(sealer: Sealer, owner: string, sealed: string): string | undefined {
  try {
    const v = sealer.open<{ owner?: unknown; bearer?: unknown }>(PURPOSE, sealed);
    return v.owner === owner && typeof v.bearer === "string" ? v.bearer : undefined;
  } catch {
    return undefined;
  }
}
