import { findEgressRefusal } from "./egress-guard.js";

const REASONS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "DNS lookup failed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  EPIPE: "connection closed",
  UND_ERR_CONNECT_TIMEOUT: "connect timed out",
  UND_ERR_SOCKET: "connection closed by the upstream",
  UND_ERR_CLOSED: "connection closed",
};

/**
 * A short, secret-free reason when `err` means "the upstream could not be reached" (DNS,
 * refused, reset, TLS, egress refusal), else `undefined`. Sources turn it into a 502.
 */
export function networkErrorReason(err: unknown): string | undefined {
  const refusal = findEgressRefusal(err);
  if (refusal) return refusal.message;
  for (let e = err, depth = 0; e && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") {
      if (REASONS[code]) return `${REASONS[code]} (${code})`;
      if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL)/.test(code)) return `TLS error (${code})`;
    }
    // Happy-eyeballs connects report every failed attempt in an AggregateError.
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner) && inner.length > 0) {
      const first = networkErrorReason(inner[0]);
      if (first) return first;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
