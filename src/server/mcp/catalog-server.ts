import { createRequire } from "node:module";
import type { FastifyBaseLogger } from "fastify";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema, ErrorCode, isJSONRPCNotification, GetPromptRequestSchema, ListPromptsRequestSchema, ListToolsRequestSchema,
  type CallToolRequest, type CallToolResult, type GetPromptResult, type ListPromptsResult, type ListToolsResult, type RequestId,
  type ServerNotification, type ServerRequest, type Tool as McpTool,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { isToolnexusError, ToolnexusError } from "../../core/errors.js";
import { ownerKey, type Caller } from "../auth/index.js";
import { bindAbort, onSignalAbort } from "../calls/bind-abort.js";
import type { CallPipeline } from "../calls/call-pipeline.js";
import type { CatalogViews } from "../catalog/view.js";
import { scrubDeep } from "../observability/scrub-deep.js";
import type { ServiceState } from "../service/service-state.js";
import { InFlightMcpCalls } from "./in-flight.js";
import { invalidArgumentsResult, JsonRpcError, toCallToolResult, toJsonRpcError } from "./results.js";

const { version } = createRequire(import.meta.url)("../../../package.json") as { version: string };
const SKILL_TOOL = "skill";
const clientClosed = () => new ToolnexusError("CLIENT_CLOSED", "The client closed the connection");
const SKILLS_PROMPT = "skills";

/** Who an MCP connection serves and how its calls are identified in logs. */
export interface McpSession {
  caller: Caller;
  log: FastifyBaseLogger;
  /** The request id of a call's log line and error data (over HTTP, the HTTP request's id). */
  requestId(id: RequestId): string;
  /** How calls of this session are logged and audited (default "mcp": over HTTP). */
  transport?: "mcp" | "stdio";
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * The catalog as an MCP server, transport-agnostic: `/mcp` makes one SDK Server
 * per HTTP request (stateless streamable HTTP), `toolnexus mcp` one for its stdio connection.
 * What a Server costs per request is kept small: listings are cached per catalog version and
 * caller, and the JSON-Schema validator (the SDK builds an Ajv per Server otherwise) is shared.
 */
export class McpCatalog {
  /** `tools/call` requests in flight on this replica, for notifications/cancelled. */
  readonly inFlight = new InFlightMcpCalls();
  // Built on the first MCP request: a service that never gets one pays nothing for it.
  private validator?: AjvJsonSchemaValidator;

  constructor(
    private readonly state: ServiceState,
    private readonly views: CatalogViews,
    private readonly pipeline: CallPipeline,
    private readonly scrub: (s: string) => string,
  ) {}

  /**
   * Connects a new SDK Server for `session` to `transport` (one stdio connection, or one
   * stateless HTTP request) and resolves with it.
   */
  async connect(session: McpSession, transport: Transport): Promise<Server> {
    const server = this.server(session);
    await server.connect(transport);
    // notifications/cancelled is seen here before the SDK's own handler runs. Ours aborts the
    // call wherever it runs on this replica: over stateless HTTP it arrives in a POST of its
    // own, to a Server that never saw the request. The SDK's handler still runs after it: on a
    // connection that carried the request (stdio), it drops the response, as MCP asks.
    const onmessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (isJSONRPCNotification(message) && message.method === "notifications/cancelled") {
        const { requestId, reason } = (message.params ?? {}) as { requestId?: RequestId; reason?: unknown };
        if (requestId !== undefined) this.inFlight.cancel(ownerKey(session.caller), requestId, typeof reason === "string" ? reason : undefined);
      }
      onmessage?.(message, extra);
    };
    return server;
  }

  private server(session: McpSession): Server {
    const server = new Server({ name: "toolnexus", version }, {
      // listChanged is not advertised: a stateless server has no stream to announce a reload on.
      capabilities: { tools: {}, prompts: {} },
      jsonSchemaValidator: (this.validator ??= new AjvJsonSchemaValidator()),
    });
    const { caller } = session;
    // A failure outside a call (NOT_READY while loading) is a JSON-RPC error with our code in data.
    const guard = <T>(extra: Extra, fn: () => T): T => {
      try {
        return fn();
      } catch (err) {
        throw isToolnexusError(err) ? toJsonRpcError(err, session.requestId(extra.requestId), this.scrub) : err;
      }
    };
    server.setRequestHandler(ListToolsRequestSchema, (req, extra) => guard(extra, () => this.listTools(caller, req.params?.cursor)));
    server.setRequestHandler(CallToolRequestSchema, (req, extra) => this.callTool(session, req.params, extra));
    server.setRequestHandler(ListPromptsRequestSchema, (_req, extra) => guard(extra, () => this.listPrompts(caller)));
    server.setRequestHandler(GetPromptRequestSchema, (req, extra) => guard(extra, () => this.getPrompt(caller, req.params.name)));
    return server;
  }

  /** `tools/list`: exactly the caller's `GET /tools`, a page of `server.mcp.pageSize` at a time. */
  private listTools(caller: Caller, cursor: string | undefined): ListToolsResult {
    const tools = this.listing(caller);
    const pageSize = this.state.loaded.config.server.mcp.pageSize;
    const start = cursor === undefined ? 0 : offsetOf(cursor);
    const end = start + pageSize;
    return { tools: tools.slice(start, end), ...(end < tools.length ? { nextCursor: cursorOf(end) } : {}) };
  }

  private listing(caller: Caller): McpTool[] {
    const view = this.views.of(caller);
    return view.form("mcp tools/list", () => {
      const infos = view.tools.map((t): McpTool => ({ name: t.name, description: t.description, inputSchema: { type: "object", ...t.inputSchema } }));
      // A description derived from a URL may hold an expanded ${VAR}: never list it (as GET /tools).
      return scrubDeep(infos, this.scrub);
    });
  }

  /**
   * `tools/call` through the one pipeline. Arguments failing the schema come back as an isError
   * result; an unknown or forbidden tool and every other failure as a JSON-RPC error.
   */
  private async callTool(session: McpSession, params: CallToolRequest["params"], extra: Extra): Promise<CallToolResult> {
    const { caller } = session;
    const requestId = session.requestId(extra.requestId);
    const progressToken = params._meta?.progressToken;
    try {
      const result = await this.pipeline.call(params.name, { arguments: params.arguments ?? {} }, {
        caller, requestId, transport: session.transport ?? "mcp", log: session.log,
        onStart: (call) => {
          this.inFlight.add(ownerKey(caller), extra.requestId, call);
          // The SDK aborts extra.signal when the transport closes: over HTTP, the response stream.
          bindAbort(call, extra.signal, onSignalAbort, clientClosed);
        },
        ...(progressToken === undefined ? {} : {
          onProgress: (p) => {
            extra.sendNotification({ method: "notifications/progress", params: { progressToken, ...p } }).catch(() => {});
          },
        }),
      });
      return toCallToolResult(result);
    } catch (err) {
      if (isToolnexusError(err, "INVALID_ARGUMENTS")) return invalidArgumentsResult(err, this.scrub);
      throw toJsonRpcError(isToolnexusError(err) ? err : new ToolnexusError("INTERNAL", "Internal error", { cause: err }), requestId, this.scrub);
    }
  }

  /** The skills catalog as one prompt, for a caller that may use the skill tool and when skills exist. */
  private listPrompts(caller: Caller): ListPromptsResult {
    if (!this.hasSkills(caller)) return { prompts: [] };
    return { prompts: [{ name: SKILLS_PROMPT, description: "The agent skills this gateway serves, as a system-prompt catalog (GET /skills/prompt)." }] };
  }

  private getPrompt(caller: Caller, name: string): GetPromptResult {
    if (name !== SKILLS_PROMPT || !this.hasSkills(caller)) throw new JsonRpcError(ErrorCode.InvalidParams, `No prompt named "${name}"`);
    const text = this.state.toolkit().skillsPrompt();
    return { description: "The agent skills catalog", messages: [{ role: "user", content: { type: "text", text } }] };
  }

  private hasSkills(caller: Caller): boolean {
    return caller.allows(SKILL_TOOL) && this.state.toolkit().skills().length > 0;
  }
}

// Cursors are opaque to clients (MCP pagination): an offset into the caller's listing.
function cursorOf(offset: number): string {
  return Buffer.from(`o:${offset}`).toString("base64url");
}

function offsetOf(cursor: string): number {
  const m = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!m) throw new JsonRpcError(ErrorCode.InvalidParams, "Invalid cursor");
  return Number(m[1]);
}
