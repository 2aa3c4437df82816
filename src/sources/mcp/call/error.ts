import { forwardsCredential } from "../../../net/forward-auth.js";
import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SseError,
} from "@modelcontextprotocol/client";
import { ToolnexusError, upstreamUnavailable } from "../../../core/errors.js";
import type { ToolResult } from "../../../core/types.js";
import { networkErrorReason } from "../../../net/network-error.js";
import { MessageTooLargeError } from "../transport/bounded-body.js";

/** How a failed `tools/call` is answered, and whether the session must be rebuilt. */
export type CallFailure =
  { throw: Error; reconnect: boolean; result?: undefined } | { result: ToolResult; reconnect: false; throw?: undefined };

/** Where the failure happened; `lost` is true when the source saw the transport close meanwhile. */
export interface CallFailureInfo {
  server: string;
  tool: string;
  lost: boolean;
}

// Raised by the SDK client itself when a result breaks the tool's declared outputSchema.
const OUTPUT_SCHEMA_ERRORS = /Structured content does not match|did not return structured content|Failed to validate structured content/;

// SDK-local failures that mean the connection is unusable (not a verdict on this one call).
const UNREACHABLE = new Set<string>([SdkErrorCode.NotConnected, SdkErrorCode.SendFailed]);

/**
 * Sorts out why a call failed (an outcome the model reads vs. a failure):
 * the server gone or unreachable ⇒ 502 and reconnect; a result that is not a valid MCP result
 * ⇒ 502 (a bad gateway); the SDK's own request timeout ⇒ 504; a JSON-RPC error the server sent
 * (unknown tool, invalid params) ⇒ an `isError` result the model can act on; anything else
 * propagates (500). Cancellation by the caller is handled before this is consulted.
 */
export function classifyCallError(err: unknown, info: CallFailureInfo): CallFailure {
  const where = `MCP server "${info.server}"`;
  if (info.lost || (err instanceof SdkError && err.code === SdkErrorCode.ConnectionClosed)) {
    return { throw: upstreamUnavailable(`${where} closed the connection during the call`, err), reconnect: true };
  }
  const tooLarge = findCause(err, (e) => e instanceof MessageTooLargeError);
  if (tooLarge) return { throw: upstreamUnavailable(`${where}: ${tooLarge.message}`, err), reconnect: false };
  const network = networkErrorReason(err);
  const http = httpStatus(err);
  // The caller's own credential refused: that caller's problem, not the server's (no reconnect).
  if (http === 401 && forwardsCredential()) {
    return { throw: new ToolnexusError("UPSTREAM_AUTH_FAILED", `${where} refused the caller's credential (HTTP 401)`), reconnect: false };
  }
  if (network || http !== undefined || (err instanceof SdkError && UNREACHABLE.has(err.code))) {
    const reason = network ?? (http !== undefined ? `HTTP ${http}` : "not connected");
    return { throw: upstreamUnavailable(`${where} cannot be reached: ${reason}`, err), reconnect: true };
  }
  const malformed = err instanceof SdkError && (err.code === SdkErrorCode.InvalidResult || err.code === SdkErrorCode.UnsupportedResultType);
  if (malformed || isSchemaError(err) || (err instanceof ProtocolError && OUTPUT_SCHEMA_ERRORS.test(err.message))) {
    return { throw: upstreamUnavailable(`${where} returned a malformed result for "${info.tool}"`, err), reconnect: false };
  }
  if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) {
    return {
      throw: new ToolnexusError("TOOL_TIMEOUT", `${where} did not answer "${info.tool}" in time`, { cause: err }),
      reconnect: false,
    };
  }
  if (err instanceof ProtocolError) {
    // The capabilities a server needs and the gateway did not declare (-32021): kept, so /mcp can say so in kind.
    const required = err instanceof MissingRequiredClientCapabilityError ? { requiredCapabilities: err.requiredCapabilities } : {};
    return {
      result: {
        output: err.message,
        isError: true,
        metadata: { server: info.server, tool: info.tool, mcpErrorCode: err.code, ...required },
      },
      reconnect: false,
    };
  }
  return { throw: err instanceof Error ? err : new Error(String(err)), reconnect: false };
}

/** The HTTP status of a transport failure (streamable HTTP or SSE), if it is one. */
function httpStatus(err: unknown): number | string | undefined {
  if (err instanceof SdkHttpError) return err.status ?? err.code;
  if (err instanceof SseError) return err.code ?? "error";
  return undefined;
}

/** A zod validation error (the SDK's result schemas), recognised without importing zod. */
function isSchemaError(err: unknown): boolean {
  return err instanceof Error && (err.name === "ZodError" || Array.isArray((err as { issues?: unknown }).issues));
}

/** The first error of `err`'s cause chain (itself included, at most 5 deep) that `match` accepts. */
function findCause(err: unknown, match: (e: unknown) => boolean): Error | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++, e = e.cause) if (match(e)) return e;
  return undefined;
}
