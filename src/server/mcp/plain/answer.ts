import {
  isInputRequiredResult,
  SERVER_INFO_META_KEY,
  specTypeSchemas,
  type CallToolResult,
  type ListToolsResult,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { hasTaskClientCapabilityV2 } from "@modelcontextprotocol/ext-tasks/core/v2";
import { isToolnexusError } from "../../../core/errors.js";
import type { McpCatalog } from "../catalog-server.js";
import type { McpSession } from "../session.js";
import type { PlainRequest } from "./request.js";
import { JsonRpcError, toJsonRpcError } from "../results.js";

/**
 * What the plain path made of a request: the JSON-RPC message to answer with (HTTP 200, one
 * JSON body, as the SDK's transports answer it), or a call it ran whose answer only the SDK
 * gives (an input_required result, a capability error): the SDK then answers it from
 * `session.ran` without running the tool again.
 */
export type PlainOutcome = { message: Record<string, unknown> } | { ran: NonNullable<McpSession["ran"]> };

// The SDK's wire mapping of a thrown error code (its codecs' encodeErrorCode, both eras).
const wireCode = (code: number) => (code === -32002 ? -32602 : code);
// The keys of a task as tools/call answers it when the call became one (tasks/wire.ts createTaskResult).
const CREATED_TASK_KEYS = new Set([
  "resultType",
  "taskId",
  "status",
  "statusMessage",
  "createdAt",
  "lastUpdatedAt",
  "ttlMs",
  "pollIntervalMs",
]);

/**
 * Answers a plain `tools/call` or `tools/list` (request.ts) with what the SDK's
 * per-request Server would have answered, without building one: the same catalog methods
 * (`listTools`, `callTool`: the one call pipeline, its checks, log line, span and audit), then
 * the SDK's result checks and encoding for the era: a `tools/call` result checked against the
 * SDK's CallToolResult schema; on 2026-07-28, `resultType`, the `tools/list` cache fields and
 * the server's identity in `_meta`. A 2026 `tools/call` of a tool with task support runs as
 * the SDK's Server runs it (through the tasks extension). Undefined for a `tools/list` the SDK
 * should answer (an error, a listing whose output schemas the 2025 codec rewrites): listing
 * has no side effects; and for a tasks method the SDK should answer (tasks/methods.ts).
 */
export async function answerPlain(
  catalog: McpCatalog,
  req: PlainRequest,
  session: McpSession,
  signal: AbortSignal,
): Promise<PlainOutcome | undefined> {
  if (req.taskId !== undefined) return answerTask(catalog, req, session);
  const modern = req.envelope !== undefined;
  if (req.method === "tools/list") {
    let listed: ListToolsResult;
    try {
      listed = catalog.listTools(session.caller, req.cursor, session.discovery);
    } catch {
      return undefined;
    }
    if (!modern) return listed.tools.some((t) => t.outputSchema && t.outputSchema.type !== "object") ? undefined : result(req, listed);
    return result(req, stamp(catalog, { ...listed, resultType: "complete", ...catalog.listCacheHint() }));
  }

  // The context callTool reads of the SDK's: nothing is streamed (no progress token, no log
  // level: request.ts), so notifications and log messages have nowhere to go, as with the
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
    // As the SDK's Server calls it: a 2026 one with the tasks extension.
    outcome = { status: "fulfilled", value: await catalog.callTool(session, params, ctx, modern ? catalog.tasks : undefined) };
  } catch (reason) {
    outcome = { status: "rejected", reason };
  }
  if (outcome.status === "rejected") {
    const err = outcome.reason;
    return err instanceof JsonRpcError ? failure(req, err) : { ran: { id: req.id, outcome } };
  }
  const value = outcome.value;
  // The call became a task: the SDK's tools/call result check gives a contentless result
  // `content: []`, first (its schema's own key), and the 2026 stamp keeps resultType "task".
  if (isCreatedTask(value)) return result(req, stamp(catalog, { content: [], ...(value as Record<string, unknown>) }));
  if (isInputRequiredResult(value) || !isCallToolResult(value)) return { ran: { id: req.id, outcome } };
  return result(req, modern ? stamp(catalog, { ...value, resultType: "complete" }) : value);
}

/**
 * `tasks/get`, `tasks/cancel` or `tasks/update` as the SDK's Server answers them
 * (tasks/methods.ts): only for a client that declared the extension (the SDK refuses the others,
 * -32021); `tasks/update` gets the `inputResponses` the SDK would lift and keep (an entry that is
 * not an object, or looks like a request or a result, is dropped); the result stamped as every
 * 2026 result is; an error as the SDK encodes what a handler throws.
 */
async function answerTask(catalog: McpCatalog, req: PlainRequest, session: McpSession): Promise<PlainOutcome | undefined> {
  const { tasks } = catalog;
  if (!tasks || !hasTaskClientCapabilityV2({ _meta: req.envelope })) return undefined;
  const { caller } = session;
  const taskId = req.taskId as string;
  let value: Record<string, unknown>;
  try {
    if (req.method === "tasks/get") value = await tasks.get(caller, taskId);
    else if (req.method === "tasks/cancel") value = await tasks.cancel(caller, taskId);
    else value = await tasks.update(caller, taskId, req.inputResponses === undefined ? undefined : keptResponses(req.inputResponses));
  } catch (err) {
    if (err instanceof JsonRpcError) return failure(req, err);
    if (isToolnexusError(err)) return failure(req, toJsonRpcError(err, session.requestId(req.id), catalog.scrub));
    // Not thrown by these methods by design; the SDK's encoding of any other Error.
    if (!(err instanceof Error)) return undefined;
    const code = (err as { code?: unknown }).code;
    const data = (err as { data?: Record<string, unknown> }).data;
    return failure(req, new JsonRpcError(Number.isSafeInteger(code) ? (code as number) : -32603, err.message, data));
  }
  // The SDK stamps resultType "complete" after the task's own keys (and refuses any other).
  if (value.resultType !== undefined) return undefined;
  return result(req, stamp(catalog, { ...value, resultType: "complete" }));
}

// The SDK's partition of a request's inputResponses: what a handler sees of them.
function keptResponses(responses: unknown): Record<string, unknown> {
  if (typeof responses !== "object" || responses === null || Array.isArray(responses)) return {};
  const isEntry = (e: unknown) => typeof e === "object" && e !== null && !Array.isArray(e) && !("method" in e) && !("result" in e);
  return Object.fromEntries(Object.entries(responses).filter(([, e]) => isEntry(e)));
}

function result(req: PlainRequest, value: object): PlainOutcome {
  return { message: { result: value, jsonrpc: "2.0", id: req.id } };
}

function failure(req: PlainRequest, err: JsonRpcError): PlainOutcome {
  const error = { code: wireCode(err.code), message: err.message, ...(err.data === undefined ? {} : { data: err.data }) };
  return { message: { jsonrpc: "2.0", id: req.id, error } };
}

function isCreatedTask(value: object): boolean {
  return (value as { resultType?: unknown }).resultType === "task" && Object.keys(value).every((k) => CREATED_TASK_KEYS.has(k));
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
