import {
  isInputRequiredResult,
  SERVER_INFO_META_KEY,
  specTypeSchemas,
  type CallToolResult,
  type ListToolsResult,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { McpCatalog, McpSession } from "./catalog-server.js";
import type { PlainRequest } from "./plain-request.js";
import { JsonRpcError } from "./results.js";

/**
 * What the plain path made of a request: the JSON-RPC message to answer with (HTTP 200, one
 * JSON body, as the SDK's transports answer it), or a call it ran whose answer only the SDK
 * gives (an input_required result, a capability error): the SDK then answers it from
 * `session.ran` without running the tool again.
 */
export type PlainOutcome = { message: Record<string, unknown> } | { ran: NonNullable<McpSession["ran"]> };

// The SDK's wire mapping of a thrown error code (its codecs' encodeErrorCode, both eras).
const wireCode = (code: number) => (code === -32002 ? -32602 : code);

/**
 * Answers a plain `tools/call` or `tools/list` (plain-request.ts) with what the SDK's
 * per-request Server would have answered, without building one: the same catalog methods
 * (`listTools`, `callTool`: the one call pipeline, its checks, log line, span and audit), then
 * the SDK's result checks and encoding for the era: a `tools/call` result checked against the
 * SDK's CallToolResult schema; on 2026-07-28, `resultType`, the `tools/list` cache fields and
 * the server's identity in `_meta`. Undefined for a `tools/list` the SDK should answer (an
 * error, a listing whose output schemas the 2025 codec rewrites): listing has no side effects.
 */
export async function answerPlain(
  catalog: McpCatalog,
  req: PlainRequest,
  session: McpSession,
  signal: AbortSignal,
): Promise<PlainOutcome | undefined> {
  const modern = req.envelope !== undefined;
  if (req.method === "tools/list") {
    let listed: ListToolsResult;
    try {
      listed = catalog.listTools(session.caller, req.cursor);
    } catch {
      return undefined;
    }
    if (!modern) return listed.tools.some((t) => t.outputSchema && t.outputSchema.type !== "object") ? undefined : result(req, listed);
    return result(req, stamp(catalog, { ...listed, resultType: "complete", ...catalog.listCacheHint() }));
  }

  // The context callTool reads of the SDK's: nothing is streamed (no progress token, no log
  // level: plain-request.ts), so notifications and log messages have nowhere to go, as with the
  // SDK's JSON answers; the signal aborts when the response closes before it ended.
  const ctx = {
    mcpReq: {
      id: req.id,
      ...(modern ? { envelope: req.envelope } : {}),
      signal,
      requestState: () => undefined,
      notify: async () => {},
      log: async () => {},
    },
  } as unknown as ServerContext;
  const params = { name: req.name as string, ...(req.arguments ? { arguments: req.arguments } : {}) };
  let outcome: PromiseSettledResult<Awaited<ReturnType<McpCatalog["callTool"]>>>;
  try {
    outcome = { status: "fulfilled", value: await catalog.callTool(session, params, ctx) };
  } catch (reason) {
    outcome = { status: "rejected", reason };
  }
  if (outcome.status === "rejected") {
    const err = outcome.reason;
    if (!(err instanceof JsonRpcError)) return { ran: { id: req.id, outcome } };
    const error = { code: wireCode(err.code), message: err.message, ...(err.data === undefined ? {} : { data: err.data }) };
    return { message: { jsonrpc: "2.0", id: req.id, error } };
  }
  const value = outcome.value;
  if (isInputRequiredResult(value) || !isCallToolResult(value)) return { ran: { id: req.id, outcome } };
  return result(req, modern ? stamp(catalog, { ...value, resultType: "complete" }) : value);
}

function result(req: PlainRequest, value: object): PlainOutcome {
  return { message: { result: value, jsonrpc: "2.0", id: req.id } };
}

// The SDK's result check for tools/call (a result that fails it is the SDK's to refuse). A tool's
// text output as toCallToolResult shapes it (one text part, maybe isError) is valid by
// construction and skips the schema (~10 µs a call, a twentieth of the whole).
function isCallToolResult(value: unknown): value is CallToolResult {
  if (isTextResult(value as Record<string, unknown>)) return true;
  const checked = specTypeSchemas.CallToolResult["~standard"].validate(value);
  return !(checked instanceof Promise) && checked.issues === undefined;
}

// The server's identity in a 2026 result's `_meta`, unless the result names one already.
function stamp(catalog: McpCatalog, value: Record<string, unknown>): Record<string, unknown> {
  const meta = value._meta;
  if (meta === undefined) return { ...value, _meta: { [SERVER_INFO_META_KEY]: catalog.info } };
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return value;
  if ((meta as Record<string, unknown>)[SERVER_INFO_META_KEY] !== undefined) return value;
  return { ...value, _meta: { ...meta, [SERVER_INFO_META_KEY]: catalog.info } };
}

function isTextResult(v: Record<string, unknown>): boolean {
  const part = Array.isArray(v.content) && v.content.length === 1 ? (v.content[0] as Record<string, unknown>) : undefined;
  const plainKeys = Object.keys(v).every((k) => k === "content" || (k === "isError" && v.isError === true));
  return plainKeys && part?.type === "text" && typeof part.text === "string" && Object.keys(part).length === 2;
}
