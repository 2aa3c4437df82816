import type { IncomingHttpHeaders } from "node:http";
import {
  BAGGAGE_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  specTypeSchemas,
  SUPPORTED_PROTOCOL_VERSIONS,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY,
  type RequestId,
} from "@modelcontextprotocol/server";

/** A `tools/call`, `tools/list` or tasks method that plain-answer.ts may answer without a per-request SDK Server. */
export interface PlainRequest {
  id: RequestId;
  method: "tools/call" | "tools/list" | TaskMethod;
  /** The 2026-07-28 per-request envelope (the reserved `_meta` keys); undefined on a 2025-era request. */
  envelope?: Record<string, unknown>;
  /** `tools/call`: the tool; `tools/list`: undefined. */
  name?: string;
  arguments?: Record<string, unknown>;
  cursor?: string;
  /** A tasks method: the task. */
  taskId?: string;
  /** `tasks/update`: its `inputResponses`, as sent (undefined when absent). */
  inputResponses?: unknown;
}

/** The tasks extension's methods. */
type TaskMethod = "tasks/get" | "tasks/cancel" | "tasks/update";
const isTaskMethod = (m: unknown): m is TaskMethod => m === "tasks/get" || m === "tasks/cancel" || m === "tasks/update";
// What a JSON-RPC request may hold (the SDK's JSONRPCRequestSchema is strict): anything more is the SDK's to refuse.
const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);

// The only modern revision the SDK serves; any other claim is answered (refused) by the SDK.
const MODERN = "2026-07-28";
// The `_meta` keys a plain request may carry: the envelope of either era and trace context.
// Anything else (a progress token, a log level, a related task) asks for what the SDK does.
const PLAIN_META = new Set([
  PROTOCOL_VERSION_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY,
  BAGGAGE_META_KEY,
]);
// The envelope as the SDK lifts it for a handler (ctx.mcpReq.envelope).
const ENVELOPE = [PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY];

/**
 * The request as a plain `tools/call` or `tools/list`, or a 2026-07-28 `tasks/get`,
 * `tasks/cancel` or `tasks/update` (its params as the SDK checks them: a string `taskId`,
 * mirrored by Mcp-Name),
 * or undefined for anything the SDK must see. Every check the SDK would make of such a request must pass here, else it goes the
 * SDK's way and gets the SDK's answer, errors included: so this only ever narrows, and when in
 * doubt says undefined. The era is decided as the SDK's classifier decides it (a
 * protocol-version claim in `_meta` makes a 2026-07-28 request), the params are checked with
 * the SDK's own schemas (`specTypeSchemas`), and a 2026 envelope by the SDK's classifier
 * (`classifyInboundRequest`), once per distinct envelope: it costs ~50 µs a request, most of it
 * in failed schema matches (is it a response? an error?) that a request never passes.
 */
export function plainRequestOf(body: Record<string, unknown>, headers: IncomingHttpHeaders): PlainRequest | undefined {
  const { method, id, params } = body;
  const task = isTaskMethod(method);
  if (method !== "tools/call" && method !== "tools/list" && !task) return undefined;
  // A JSON-RPC request (the SDK's RequestId: a string or an integer), and nothing else.
  if ((typeof id !== "string" && !Number.isSafeInteger(id)) || !Object.keys(body).every((k) => REQUEST_KEYS.has(k))) return undefined;
  if (!isJsonContentType(one(headers["content-type"]) ?? null)) return undefined;
  if (params !== undefined && !isPlainObject(params)) return undefined;
  const meta = params?._meta;
  if (meta !== undefined && (!isPlainObject(meta) || !Object.keys(meta).every((k) => PLAIN_META.has(k)))) return undefined;
  // No retry of an input_required round, no task augmentation: the SDK's. (A tasks/update
  // carries its answers in inputResponses.)
  if (params && ("requestState" in params || ("inputResponses" in params && method !== "tasks/update") || "task" in params))
    return undefined;

  const version = one(headers["mcp-protocol-version"]);
  let envelope: Record<string, unknown> | undefined;
  if (meta && PROTOCOL_VERSION_META_KEY in meta) {
    // 2026-07-28: the standard headers present and agreeing with the body (an encoded
    // Mcp-Name is the SDK's to decode), and a valid envelope.
    if (meta[PROTOCOL_VERSION_META_KEY] !== MODERN || version?.trim() !== MODERN || one(headers["mcp-method"])?.trim() !== method)
      return undefined;
    if (method === "tools/call" && one(headers["mcp-name"])?.trim() !== params?.name) return undefined;
    // A task's id is its Mcp-Name, and a string (the SDK's params check of the tasks methods).
    if (task && (typeof params?.taskId !== "string" || one(headers["mcp-name"])?.trim() !== params.taskId)) return undefined;
    if (!validEnvelope(body, meta, headers)) return undefined;
    envelope = Object.fromEntries(ENVELOPE.filter((k) => k in meta).map((k) => [k, meta[k]]));
    if (task) {
      const answers = params && "inputResponses" in params ? { inputResponses: params.inputResponses } : {};
      return { id: id as RequestId, method, envelope, taskId: params?.taskId as string, ...answers };
    }
  } else {
    // The tasks extension is the 2026 era's.
    if (task) return undefined;
    // 2025: what the streamable HTTP transport checks of a request after initialize.
    const accept = one(headers.accept);
    if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) return undefined;
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  }

  const schema = method === "tools/call" ? specTypeSchemas.CallToolRequest : specTypeSchemas.ListToolsRequest;
  const valid = schema["~standard"].validate({ method, params });
  if (valid instanceof Promise || valid.issues !== undefined) return undefined;
  const rid = id as RequestId;
  if (method === "tools/list")
    return { id: rid, method, envelope, ...(typeof params?.cursor === "string" ? { cursor: params.cursor } : {}) };
  const args = params?.arguments;
  return { id: rid, method, envelope, name: params?.name as string, ...(isPlainObject(args) ? { arguments: args } : {}) };
}

// Envelopes the SDK's classifier found valid (true) or invalid (false), by their JSON: a client
// sends the same one on every request. Bounded; an envelope too large to keep is checked each time.
const envelopes = new Map<string, boolean>();
const MAX_ENVELOPES = 1000;
const MAX_KEY = 4096;

function validEnvelope(body: Record<string, unknown>, meta: Record<string, unknown>, headers: IncomingHttpHeaders): boolean {
  // An absent key ([]) is not a null one ([null]).
  const key = JSON.stringify(ENVELOPE.map((k) => (k in meta ? [meta[k]] : [])));
  const known = envelopes.get(key);
  if (known !== undefined) return known;
  const route = classifyInboundRequest({
    httpMethod: "POST",
    body,
    protocolVersionHeader: one(headers["mcp-protocol-version"]),
    mcpMethodHeader: one(headers["mcp-method"]),
    mcpNameHeader: one(headers["mcp-name"]),
  });
  const valid = route.kind === "modern" ? true : route.kind === "reject" && route.cell === "envelope-invalid" ? false : undefined;
  if (valid === undefined) return false;
  if (key.length <= MAX_KEY) {
    if (envelopes.size >= MAX_ENVELOPES) envelopes.clear();
    envelopes.set(key, valid);
  }
  return valid;
}

// A header Node gives as a string (a repeated one it joins, as the web Headers do); an array is not plain.
function one(value: string | string[] | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
