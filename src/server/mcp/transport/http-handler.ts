import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpRequestContext,
  type ServerEventBus,
} from "@modelcontextprotocol/server";
import type { IncomingHttpHeaders } from "node:http";
import type { McpCatalog } from "../catalog-server.js";
import type { McpSession } from "../session.js";
import { isRelayReply } from "../input/legacy-relay.js";
import { answerPlain, type PlainOutcome } from "../plain/answer.js";
import { plainRequestOf } from "../plain/request.js";
import type { ResourceSubscriptions } from "../surface/subscriptions.js";
import { listenWithResources } from "../surface/listen.js";

/** One `/mcp` POST as the endpoint hands it over: the web request, its parsed body and who sent it. */
export interface McpExchange {
  request: Request;
  body: Record<string, unknown>;
  session: McpSession;
}

/** One `/mcp` POST before any web Request is built: its parsed body, headers, sender, and a signal that aborts when its response closes early. */
export interface PlainExchange {
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  session: McpSession;
  signal: AbortSignal;
}

/** What `/mcp` needs of the SDK: an answer to one exchange, and a way to stop. */
export interface McpHttp {
  /** A plain `tools/call`, `tools/list` or tasks method answered without per-request SDK objects, or undefined: then {@link McpHttp.handle}. */
  plain(exchange: PlainExchange): Promise<PlainOutcome | undefined>;
  handle(exchange: McpExchange): Promise<Response>;
  close(): Promise<void>;
}

/**
 * `/mcp` for both protocol eras on one path. A 2026-07-28 request goes to the SDK's
 * per-request handler (`createMcpHandler`, strict: it checks the envelope, `Mcp-Method` and
 * `Mcp-Name`, serves `server/discover` and `subscriptions/listen` on `bus`). A 2025-era
 * request is served as before this SDK: a fresh Server on a stateless streamable HTTP
 * transport, answering one JSON body unless the call may stream progress or an upstream's log
 * messages (the SDK's own legacy leg always answers a stream, which 2025 clients accept but
 * costs every request a stream).
 */
export function mcpHttp(
  catalog: McpCatalog,
  bus: ServerEventBus,
  onerror: (err: Error) => void,
  subscriptions?: ResourceSubscriptions,
): McpHttp {
  // The factory is called with the authInfo handed to fetch: the session rides on its identity.
  const sessions = new WeakMap<AuthInfo, McpSession>();
  const sessionOf = ({ authInfo }: McpRequestContext): McpSession => {
    const session = authInfo && sessions.get(authInfo);
    if (!session) throw new Error("an MCP request without its session");
    return session;
  };
  const modern = createMcpHandler((ctx) => catalog.server(sessionOf(ctx), true), { legacy: "reject", bus, onerror });

  async function legacy({ request, body, session }: McpExchange): Promise<Response> {
    // A client that declared it answers elicitation, sampling or roots (its session memo says so) gets
    // an upstream's mid-call questions, and a pending's, on this call's stream.
    const caps =
      body.method === "tools/call" ? catalog.relay?.capabilities(session.caller, request.headers.get("mcp-session-id")) : undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: caps === undefined && !streams(catalog, body),
    });
    const relayed: McpSession = caps
      ? {
          ...session,
          relay: { capabilities: caps, send: (m) => transport.send(m as never, { relatedRequestId: body.id as string | number }) },
        }
      : session;
    const server = catalog.server(relayed);
    server.onerror = onerror;
    await server.connect(transport);
    // The response closed before it ended: the transport closes and the SDK aborts the call's signal.
    request.signal.addEventListener("abort", () => void transport.close(), { once: true });
    const response = await transport.handleRequest(request, { parsedBody: body });
    if (body.method === "initialize" && response.ok) {
      const memo = catalog.relay?.sessionId(session.caller, body.params);
      if (memo) response.headers.set("mcp-session-id", memo);
    }
    return response;
  }

  return {
    async plain({ body, headers, session, signal }) {
      const req = plainRequestOf(body, headers);
      if (!req || !catalog.servesPlainly(session.caller, req.name)) return undefined;
      // A 2025 client that can be asked (its session memo) is asked through the SDK's stream.
      const memo = headers["mcp-session-id"];
      if (req.name !== undefined && typeof memo === "string" && catalog.relay?.capabilities(session.caller, memo)) return undefined;
      return answerPlain(catalog, req, session, signal);
    },
    async handle(exchange) {
      const { body, session } = exchange;
      // Stateless HTTP delivers a cancellation in a POST of its own (maybe to another Server).
      if (body.method === "notifications/cancelled") catalog.cancel(session, body.params);
      // A 2025 client's reply to a relayed request (legacy-relay.ts): accepted, as streamable HTTP says, with 202.
      if (catalog.relay && isRelayReply(body)) {
        await catalog.relay.deliver(session.caller, body);
        return new Response(null, { status: 202 });
      }
      if (await isLegacyRequest(exchange.request, body)) return legacy(exchange);
      const authInfo: AuthInfo = { token: "", clientId: session.caller.id, scopes: [] };
      sessions.set(authInfo, session);
      const serve = () => modern.fetch(exchange.request, { authInfo, parsedBody: body });
      // A listen stream with resource URIs: checked, and held upstream while it is open.
      if (body.method === "subscriptions/listen" && subscriptions)
        return listenWithResources(catalog.surface, subscriptions, exchange, serve);
      return serve();
    },
    close: () => modern.close(),
  };
}

/** A `tools/call` that asks for progress, or whose tool is an MCP server's (which may send log messages). */
function streams(catalog: McpCatalog, message: Record<string, unknown>): boolean {
  if (message.method !== "tools/call") return false;
  const params = message.params as { name?: unknown; _meta?: { progressToken?: unknown } } | undefined;
  return params?._meta?.progressToken !== undefined || catalog.relaysLogs(params?.name);
}
