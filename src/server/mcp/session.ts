/**
 * Who an MCP connection serves, in a module of its own: the catalog, the tool-call handler,
 * the transports and the plain path all take it, and none of them needs the others for it.
 */
import type { FastifyBaseLogger } from "fastify";
import type { CallToolResult, InputRequiredResult, RequestId } from "@modelcontextprotocol/server";
import type { Caller } from "../auth/index.js";
import type { Discovery } from "./discovery.js";
import type { RelaySink } from "./input/legacy-relay.js";
import type { SessionSubscriptions } from "./surface/subscriptions.js";

/** Who an MCP connection serves and how its calls are identified in logs. */
export interface McpSession {
  caller: Caller;
  log: FastifyBaseLogger;
  /** The request id of a call's log line and error data (over HTTP, the HTTP request's id). */
  requestId(id: RequestId): string;
  /** How calls of this session are logged and audited (default "mcp": over HTTP). */
  transport?: "mcp" | "stdio";
  /** A session that lives on (stdio): its 2025 `resources/subscribe` subscriptions. */
  resources?: SessionSubscriptions;
  /** A 2025 client's call stream that can carry an upstream's mid-call questions (legacy-relay.ts). */
  relay?: RelaySink;
  /**
   * A `tools/call` the plain path (plain/answer.ts) already ran, whose answer only the SDK
   * gives (an input_required result, a capability error): the SDK's handler returns or
   * throws it instead of running the tool a second time.
   */
  ran?: { id: RequestId; outcome: PromiseSettledResult<CallToolResult | InputRequiredResult> };
  /** `discovery: search` on this endpoint: tools/list holds search_tools and call_tool (discovery.ts). */
  discovery?: Discovery;
}
