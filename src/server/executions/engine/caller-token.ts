import type { Sealer } from "../../../core/seal.js";

/** The purpose a caller's token is sealed for: a token sealed for anything else does not open here. */
const PURPOSE = "caller-token";

/**
 * The caller's bearer sealed for an execution that must act for it upstream (a tool with
 * `upstreamAuth`), so the replica that runs the job can exchange or forward it while Redis
 * holds only ciphertext. It expires with the token (`exp`; `fallbackTtlMs` for a token
 * without one) and is bound to its owner: a sealed token moved to another caller's job does not open.
 */
export function sealCallerToken(sealer: Sealer, owner: string, bearer: string, exp: number | undefined, fallbackTtlMs: number): string {
  const ttl = exp === undefined ? fallbackTtlMs : exp * 1000 - Date.now();
  return sealer.seal(PURPOSE, { owner, bearer }, Math.max(ttl, 0));
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
