import { CLIENT_CAPABILITIES_META_KEY, ProtocolErrorCode, type CallToolResult } from "@modelcontextprotocol/server";
import type { ErrorCode as ToolnexusCode, ToolnexusError } from "../../core/errors.js";
import { pendingOf } from "../../core/input/pending.js";
import type { ToolResult } from "../../core/types.js";

type ContentPart = CallToolResult["content"][number];

/**
 * A ToolResult as an MCP `tools/call` result. `isError` is kept. When the tool's
 * MCP server sent non-text parts, src/sources/mcp/call/map-result.ts kept every part in
 * `metadata.content`: those parts go back as they came, so an image stays an image. An
 * upstream's `structuredContent` (already the output, as JSON) is given back as an object.
 */
export function toCallToolResult(result: ToolResult): CallToolResult {
  const { metadata } = result;
  const parts = Array.isArray(metadata?.content) ? (metadata.content as ContentPart[]) : undefined;
  const out: CallToolResult = { content: parts ?? [{ type: "text", text: result.output }] };
  if (result.isError) out.isError = true;
  // Kept by map-result.ts when the tool's MCP server returned one.
  const structured = metadata?.structuredContent;
  if (typeof structured === "object" && structured !== null && !Array.isArray(structured))
    out.structuredContent = structured as Record<string, unknown>;
  const pending = pendingOf(result);
  // A suspension has no MCP form: the request rides along so a client can resolve it out of band.
  if (pending) out._meta = { "toolnexus/pending": pending };
  return out;
}

/** Arguments that fail the schema: an isError result naming the JSON pointers, so a model can correct itself. */
export function invalidArgumentsResult(err: ToolnexusError, scrub: (s: string) => string): CallToolResult {
  const lines = (err.errors ?? []).map((e) => `${e.pointer || "/"}: ${e.message}`);
  return { content: [{ type: "text", text: scrub([err.message, ...lines].join("\n")) }], isError: true };
}

// The request-timeout code MCP clients know (the 1.x SDK's ErrorCode.RequestTimeout).
const REQUEST_TIMEOUT = -32001;

// JSON-RPC codes for failures before or around the run; the stable toolnexus code rides in `data`.
const JSONRPC_CODE: Partial<Record<ToolnexusCode, number>> = {
  TOOL_NOT_FOUND: ProtocolErrorCode.InvalidParams,
  FORBIDDEN: ProtocolErrorCode.InvalidParams,
  INVALID_REQUEST: ProtocolErrorCode.InvalidParams,
  INVALID_ARGUMENTS: ProtocolErrorCode.InvalidParams,
  INVALID_STATE: ProtocolErrorCode.InvalidParams,
  INVALID_INPUT_RESPONSES: ProtocolErrorCode.InvalidParams,
  INPUT_TIMEOUT: ProtocolErrorCode.InvalidParams,
  TOOL_TIMEOUT: REQUEST_TIMEOUT,
  TOOL_FAILED: ProtocolErrorCode.InternalError,
  INTERNAL: ProtocolErrorCode.InternalError,
};

/**
 * A JSON-RPC error the SDK's Protocol answers with as is: it reads `code`, `message` and `data`.
 * (The SDK's McpError would prefix the message with "MCP error <code>:".)
 */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "JsonRpcError";
  }
}

/** A ToolnexusError as a JSON-RPC error: the spec's code, the message, and `{ code, status, requestId }` as data. */
export function toJsonRpcError(err: ToolnexusError, requestId: string, scrub: (s: string) => string): JsonRpcError {
  // -32000 is the implementation-defined server error (overloaded, rate limited, not ready, upstream down, cancelled).
  const code = JSONRPC_CODE[err.code] ?? -32000;
  const retryAfter = err.headers?.["retry-after"];
  return new JsonRpcError(code, scrub(err.message), {
    code: err.code,
    status: err.status,
    requestId,
    ...(retryAfter ? { retryAfter: Number(retryAfter) } : {}),
  });
}

/** The client capabilities an upstream MCP server said it needs (its -32021), kept by the MCP source. */
export function missingCapabilities(result: ToolResult): Record<string, unknown> | undefined {
  const m = result.metadata;
  const caps = result.isError && m?.mcpErrorCode === ProtocolErrorCode.MissingRequiredClientCapability ? m.requiredCapabilities : undefined;
  return typeof caps === "object" && caps !== null && !Array.isArray(caps) ? (caps as Record<string, unknown>) : undefined;
}

/** The client capabilities a 2026 request declared in its envelope (none when absent). */
export function clientCapabilitiesOf(envelope: unknown): Record<string, unknown> {
  const caps = (envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
  return typeof caps === "object" && caps !== null ? (caps as Record<string, unknown>) : {};
}
