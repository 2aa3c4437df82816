import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ToolnexusError } from "../../../core/errors.js";
import { normalizeError } from "../../http/problem.js";
import { insufficientScope, type Caller } from "../../auth/index.js";
import type { McpSession } from "../session.js";
import type { McpConnector } from "../lazy-catalog.js";
import { isBodyParseError } from "../../http/json-body.js";
import { unwrapCallTool, type Discovery } from "../discovery.js";

// JSON-RPC's implementation-defined server error, as the SDK's transport uses for HTTP-level failures.
const SERVER_ERROR = -32000;
// JSON-RPC 2.0's own codes (the SDK's ProtocolErrorCode.ParseError and InvalidRequest), named here
// so what is refused before any MCP traffic (401, 400, 413, a batch) does not load the SDK.
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/** Options of {@link mcpEndpoint}. */
export interface McpEndpointOptions {
  catalog: McpConnector;
  path: string;
  scrub: (s: string) => string;
  /** `discovery: search` for this request's endpoint (read per request: a reload may change it). */
  discovery?: (request: FastifyRequest) => Discovery | undefined;
}

/**
 * `/mcp`: the catalog over MCP streamable HTTP, stateless, so any replica answers any
 * request, in both protocol eras (http-handler.ts): each POST gets a fresh SDK Server; the
 * web-standard transports, so the reply goes out through Fastify (one write for JSON).
 * Auth, rate limits and the body limit are the service's own hooks, run before any MCP
 * traffic; failures before the SDK sees a message are JSON-RPC error bodies with the HTTP status.
 */
export const mcpEndpoint: FastifyPluginAsync<McpEndpointOptions> = async (app, { catalog, path, scrub, discovery: discoveryOf }) => {
  app.setErrorHandler((error, request, reply) => {
    const err = normalizeError(error);
    if (err.code === "INTERNAL") request.log.error({ err: error }, "internal error");
    if (reply.raw.destroyed) return;
    return sendJsonRpcError(reply, err.status, jsonRpcCodeOf(error, err), scrub(err.message), err, request.id);
  });

  // Stateless: no standalone SSE stream to GET and no session to DELETE.
  const notAllowed = (_request: unknown, reply: FastifyReply) => {
    reply.header("allow", "POST");
    return sendJsonRpcError(reply, 405, SERVER_ERROR, "Method not allowed: this stateless MCP endpoint takes POST only");
  };
  app.get(path, { schema: { hide: true } }, notAllowed);
  app.delete(path, { schema: { hide: true } }, notAllowed);

  app.post(path, { schema: { hide: true } }, async (request, reply) => {
    const discovery = discoveryOf?.(request);
    // call_tool becomes the call of the tool it names before anything reads the request (discovery.ts).
    const { body: message, headers } = discovery
      ? unwrapCallTool(request.body, request.headers)
      : { body: request.body, headers: request.headers };
    // JSON-RPC batches were removed from MCP in 2025-06-18; the SDK would still run them.
    if (Array.isArray(message)) return sendJsonRpcError(reply, 400, INVALID_REQUEST, "Invalid Request: JSON-RPC batches are not supported");
    if (!isJsonRpcMessage(message)) return sendJsonRpcError(reply, 400, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message");
    // Step-up authorization: a call to a tool whose policy needs scopes the token lacks is refused
    // here, 403 with the insufficient_scope challenge, which an MCP client answers by asking the
    // authorization server for those scopes; as the call's JSON-RPC error it could not.
    const missing = missingScopesOfCall(message, request.caller);
    if (missing) throw insufficientScope(missing.tool, missing.scopes);

    const http = await catalog.http();
    // The client may have left while the SDK was loading (the first MCP request): run nothing.
    if (reply.raw.destroyed) throw new ToolnexusError("CLIENT_CLOSED", "The client closed the request");

    // A response closed before it ended (not the request's "close": it fires once the body is
    // read) aborts the web request; the SDK then aborts the handler's signal, and so the call
    // (CLIENT_CLOSED). A response that ended leaves nothing open.
    const closed = new AbortController();
    reply.raw.once("close", () => {
      if (!reply.raw.writableEnded) closed.abort();
    });
    const session: McpSession = {
      caller: request.caller,
      log: request.log,
      requestId: () => request.id,
      ...(discovery ? { discovery } : {}),
    };
    // A plain tools/call or tools/list is answered without the SDK's per-request objects.
    const plain = await http.plain({ body: message, headers, session, signal: closed.signal });
    if (plain && "message" in plain) return reply.type("application/json").send(JSON.stringify(plain.message));
    if (plain) session.ran = plain.ran;
    // The body Fastify already parsed goes along as is: the SDK reads only the headers.
    const webRequest = new Request(`${request.protocol}://${request.host}${request.url}`, {
      method: "POST",
      headers: headersOf(headers),
      signal: closed.signal,
    });
    const response = await http.handle({
      request: webRequest,
      body: message,
      session,
    });
    reply.code(response.status);
    response.headers.forEach((value, name) => void reply.header(name, value));
    // One JSON body is sent in one write; an SSE stream is piped as the SDK produces it.
    if (!response.body) return reply.send();
    return isEventStream(response) ? reply.send(response.body) : reply.send(await response.text());
  });
};

function isEventStream(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
}

// Repeated headers stay repeated (Fastify gives them as an array).
function headersOf(headers: FastifyRequest["headers"]): [string, string][] {
  return Object.entries(headers).flatMap(([k, v]) =>
    v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((x): [string, string] => [k, x]),
  );
}

// The shape check JSON-RPC 2.0 asks for before anything else: the SDK checks the rest.
function isJsonRpcMessage(body: unknown): body is Record<string, unknown> {
  if (typeof body !== "object" || body === null) return false;
  const m = body as Record<string, unknown>;
  return m.jsonrpc === "2.0" && (typeof m.method === "string" || "result" in m || "error" in m);
}

function jsonRpcCodeOf(raw: unknown, err: ToolnexusError): number {
  if (isBodyParseError(raw)) return PARSE_ERROR;
  return err.code === "INVALID_REQUEST" ? INVALID_REQUEST : SERVER_ERROR;
}

/** A JSON-RPC error response with id null, as the SDK's transport answers HTTP-level failures. */
function sendJsonRpcError(
  reply: FastifyReply,
  status: number,
  code: number,
  message: string,
  err?: ToolnexusError,
  requestId?: string,
): FastifyReply {
  for (const [k, v] of Object.entries(err?.headers ?? {})) reply.header(k, v);
  const data = err ? { code: err.code, status: err.status, requestId } : undefined;
  return reply
    .code(status)
    .type("application/json")
    .send(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message, ...(data ? { data } : {}) } }));
}

/** The scopes a `tools/call` of this caller lacks (policies[].requireScopes), if any. */
function missingScopesOfCall(m: Record<string, unknown>, caller: Caller): { tool: string; scopes: readonly string[] } | undefined {
  if (m.method !== "tools/call" || typeof m.params !== "object" || m.params === null) return undefined;
  const tool = (m.params as { name?: unknown }).name;
  if (typeof tool !== "string") return undefined;
  const scopes = caller.missingScopes?.(tool);
  return scopes ? { tool, scopes } : undefined;
}
