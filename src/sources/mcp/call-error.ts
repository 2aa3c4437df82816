import { SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { ToolnexusError, upstreamUnavailable } from "../../core/errors.js";
import type { ToolResult } from "../../core/types.js";
import { networkErrorReason } from "../../net/network-error.js";

/** How a failed `tools/call` is answered, and whether the session must be rebuilt. */
export type CallFailure =
  | { throw: Error; reconnect: boolean; result?: undefined }
  | { result: ToolResult; reconnect: false; throw?: undefined };

/** Where the failure happened; `lost` is true when the source saw the transport close meanwhile. */
export interface CallFailureInfo {
  server: string;
  tool: string;
  lost: boolean;
}

// Raised by the SDK client itself when a result breaks the tool's declared outputSchema.
const OUTPUT_SCHEMA_ERRORS = /Structured content does not match|did not return structured content|Failed to validate structured content/;

/**
 * Sorts out why a call failed (an outcome the model reads vs. a failure):
 * the server gone or unreachable ⇒ 502 and reconnect; a result that is not a valid MCP result
 * ⇒ 502 (a bad gateway); the SDK's own request timeout ⇒ 504; a JSON-RPC error the server sent
 * (unknown tool, invalid params) ⇒ an `isError` result the model can act on; anything else
 * propagates (500). Cancellation by the caller is handled before this is consulted.
 */
export function classifyCallError(err: unknown, info: CallFailureInfo): CallFailure {
  const where = `MCP server "${info.server}"`;
  if (info.lost || (err instanceof McpError && err.code === ErrorCode.ConnectionClosed)) {
    return { throw: upstreamUnavailable(`${where} closed the connection during the call`, err), reconnect: true };
  }
  const network = networkErrorReason(err);
  if (network || err instanceof StreamableHTTPError || err instanceof SseError || (err instanceof Error && err.message === "Not connected")) {
    const reason = network ?? (err instanceof StreamableHTTPError || err instanceof SseError ? `HTTP ${String(err.code)}` : "not connected");
    return { throw: upstreamUnavailable(`${where} cannot be reached: ${reason}`, err), reconnect: true };
  }
  if (isSchemaError(err) || (err instanceof McpError && OUTPUT_SCHEMA_ERRORS.test(err.message))) {
    return { throw: upstreamUnavailable(`${where} returned a malformed result for "${info.tool}"`, err), reconnect: false };
  }
  if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
    return { throw: new ToolnexusError("TOOL_TIMEOUT", `${where} did not answer "${info.tool}" in time`, { cause: err }), reconnect: false };
  }
  if (err instanceof McpError) {
    return { result: { output: err.message, isError: true, metadata: { server: info.server, tool: info.tool, mcpErrorCode: err.code } }, reconnect: false };
  }
  return { throw: err instanceof Error ? err : new Error(String(err)), reconnect: false };
}

/** A zod validation error (the SDK's result schemas), recognised without importing zod. */
function isSchemaError(err: unknown): boolean {
  return err instanceof Error && (err.name === "ZodError" || Array.isArray((err as { issues?: unknown }).issues));
}
