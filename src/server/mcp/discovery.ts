// Progressive discovery on an MCP endpoint (`discovery: search`): what the endpoint's config
// says, and `call_tool` unwrapped into a `tools/call` of the tool it names before anything
// reads the request, so that the one call pipeline (policy, scopes, pinning, audit, progress,
// tasks, input requests) sees the real tool and the call is exactly the direct call. Kept free
// of the MCP SDK: the endpoint uses it before the SDK is loaded.
import type { IncomingHttpHeaders } from "node:http";
import { TOOL_NAME } from "../../core/checks/tool-name.js";

/** The meta-tool that finds tools. */
export const SEARCH_TOOLS = "search_tools";
/** The meta-tool that runs a tool found. */
export const CALL_TOOL = "call_tool";

/** A `discovery: search` endpoint: its listing holds the meta-tools and the `alwaysList` tools. */
export interface Discovery {
  alwaysList: readonly string[];
}

/** The discovery of an endpoint's config (`server.mcp`, or a bundle): undefined for a full listing. */
export function discoveryOf(cfg: { discovery?: "list" | "search"; alwaysList?: string[] } | undefined): Discovery | undefined {
  return cfg?.discovery === "search" ? { alwaysList: cfg.alwaysList ?? [] } : undefined;
}

/** True for the names the meta-tools take on a `discovery: search` endpoint. */
export function isMetaTool(name: unknown): boolean {
  return name === SEARCH_TOOLS || name === CALL_TOOL;
}

/**
 * A `tools/call` of `call_tool` with well-formed arguments (`name`, a tool name that is not a
 * meta-tool, and `arguments`, an object, nothing else) as the `tools/call` of that tool: the
 * same id and `_meta`, a retry's `requestState` and `inputResponses`, a task request; and the
 * `Mcp-Name` header (a 2026 request mirrors the name there) said again. Anything else is
 * returned as it came: a malformed `call_tool` is answered by the meta-tool with what is wrong.
 */
export function unwrapCallTool<B>(body: B, headers: IncomingHttpHeaders): { body: B; headers: IncomingHttpHeaders } {
  const inner = isObject(body) ? innerCall(body) : undefined;
  if (!inner || !isObject(body)) return { body, headers };
  const params = body.params as Record<string, unknown>;
  return {
    body: { ...body, params: { ...params, name: inner.name, arguments: inner.arguments } } as B,
    headers: headers["mcp-name"] === undefined ? headers : { ...headers, "mcp-name": inner.name },
  };
}

/** The call a well-formed `call_tool` request names, or undefined. */
function innerCall(body: Record<string, unknown>): { name: string; arguments: Record<string, unknown> } | undefined {
  if (body.method !== "tools/call") return undefined;
  const params = body.params as Record<string, unknown> | undefined;
  if (!isObject(params) || params.name !== CALL_TOOL) return undefined;
  return callToolProblem(params.arguments) === undefined ? (wellFormed(params.arguments) as ReturnType<typeof innerCall>) : undefined;
}

/** What is wrong with `call_tool`'s arguments, in one sentence; undefined when nothing is. */
export function callToolProblem(args: unknown): string | undefined {
  if (!isObject(args)) return 'call_tool takes { "name": <a tool\'s name>, "arguments": { ... } }';
  const extra = Object.keys(args).filter((k) => k !== "name" && k !== "arguments");
  if (extra.length)
    return `call_tool takes only "name" and "arguments" (the tool's own arguments go inside "arguments"), not ${extra.map((k) => JSON.stringify(k.slice(0, 40))).join(", ")}`;
  if (typeof args.name !== "string") return 'call_tool needs "name": the name of a tool found with search_tools';
  if (isMetaTool(args.name)) return `call_tool runs catalog tools, not "${args.name}": call ${args.name} directly`;
  if (!TOOL_NAME.test(args.name))
    return `"${args.name.slice(0, 80)}" is not a tool name (letters, digits, _ and -, at most 128): use a name search_tools answered`;
  if (args.arguments !== undefined && !isObject(args.arguments))
    return "call_tool's \"arguments\" must be an object (the tool's arguments)";
  return undefined;
}

function wellFormed(args: unknown): { name: string; arguments: Record<string, unknown> } {
  const a = args as { name: string; arguments?: Record<string, unknown> };
  return { name: a.name, arguments: a.arguments ?? {} };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
