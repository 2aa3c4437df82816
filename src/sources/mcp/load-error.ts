import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { networkErrorReason } from "../../net/network-error.js";

/** An error tagged with the load phase it happened in (connect/initialize are untagged). */
export class PhaseError extends Error {
  constructor(
    readonly phase: string,
    readonly inner: unknown,
  ) {
    super(inner instanceof Error ? inner.message : String(inner));
  }
}

/**
 * The status text of a failed connect / initialize / tools/list: names the phase and the
 * reason in words ("initialize timed out after 500 ms", "cannot reach the server: connection
 * refused (ECONNREFUSED)"). Not yet scrubbed of secrets: the caller does that.
 */
export function describeLoadError(err: unknown, timeout: number): string {
  const phase = err instanceof PhaseError ? err.phase : "initialize";
  const inner = err instanceof PhaseError ? err.inner : err;
  const network = networkErrorReason(inner);
  if (network) return `cannot reach the server: ${network}`;
  if (inner instanceof SdkError && inner.code === SdkErrorCode.RequestTimeout) return `${phase} timed out after ${timeout} ms`;
  if (inner instanceof SdkError && inner.code === SdkErrorCode.ConnectionClosed) return `the server closed the connection during ${phase}`;
  const message = oneLine(inner instanceof Error ? inner.message : String(inner));
  return phase === "initialize" ? message : `${phase} failed: ${message}`;
}

// A schema error lists its issues as pretty-printed JSON: one line, bounded, is what status can show.
const MAX_MESSAGE = 300;
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE - 1)}…` : flat;
}
