// The `tools/list` and the meta-tools of a `discovery: search` endpoint: `search_tools` answers
// the best matches among the caller's own tools (the catalog's index, filtered to its view), and a
// `call_tool` that reaches here was malformed (a well-formed one was unwrapped into the real
// tool's call before: discovery.ts). Neither reveals a tool outside the caller's view.
import picomatch from "picomatch";
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/server";
import type { Caller } from "../auth/index.js";
import { MAX_QUERY_CHARS } from "../catalog/search.js";
import type { CatalogViews } from "../catalog/view.js";
import { CALL_TOOL, callToolProblem, SEARCH_TOOLS, type Discovery } from "./discovery.js";
import { listing } from "./tools-listing.js";

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 50;

const META_TOOLS: McpTool[] = [
  {
    name: SEARCH_TOOLS,
    title: "Search tools",
    description:
      "Find the tools for a task among every tool available here: describe what you want to do in a few words. " +
      "Answers the best matches, best first, each with its name, description and input schema; run one with call_tool.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", minLength: 1, maxLength: MAX_QUERY_CHARS, description: "What the tool should do, in a few words." },
        limit: { type: "integer", minimum: 1, maximum: MAX_LIMIT, description: `How many tools to answer (default ${DEFAULT_LIMIT}).` },
      },
      required: ["query"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: CALL_TOOL,
    title: "Call a tool",
    description:
      "Run a tool found with search_tools: its name, and its arguments as its input schema says. " + "Answers what that tool answers.",
    inputSchema: {
      type: "object",
      properties: {
        name: { type: "string", description: "The tool's name, as search_tools answered it." },
        arguments: { type: "object", description: "The tool's arguments.", additionalProperties: true },
      },
      required: ["name"],
      additionalProperties: false,
    },
  },
];

/** `tools/list` of a `discovery: search` endpoint: the meta-tools, then the caller's tools named in `alwaysList`. */
export function discoveryListing(views: CatalogViews, scrub: (s: string) => string, caller: Caller, discovery: Discovery): McpTool[] {
  const view = views.of(caller);
  const globs = discovery.alwaysList;
  return view.form(`mcp tools/list|search|${JSON.stringify(globs)}`, () => {
    const listed = globs.length ? picomatch([...globs]) : () => false;
    // A tool that bears a meta-tool's name is reachable only through call_tool here.
    return [
      ...META_TOOLS,
      ...listing(views, scrub, caller).filter((t) => listed(t.name) && t.name !== SEARCH_TOOLS && t.name !== CALL_TOOL),
    ];
  });
}

/** The answer of `search_tools` or of a malformed `call_tool`: a tool result, isError when the arguments are wrong. */
export function answerMetaTool(
  views: CatalogViews,
  scrub: (s: string) => string,
  caller: Caller,
  name: string,
  args: Record<string, unknown> | undefined,
): CallToolResult {
  if (name === CALL_TOOL) return toolError(callToolProblem(args) ?? "call_tool could not run this call");
  const problem = searchProblem(args);
  if (problem) return toolError(problem);
  const { query, limit } = args as { query: string; limit?: number };
  const view = views.of(caller);
  const byName = view.form("mcp tools by name", () => new Map(listing(views, scrub, caller).map((t) => [t.name, t])));
  const index = view.search();
  const tools = index.search(query, limit ?? DEFAULT_LIMIT).flatMap((t) => {
    const listed = byName.get(t.name);
    if (!listed) return [];
    return [
      {
        name: listed.name,
        ...(listed.title === undefined ? {} : { title: listed.title }),
        description: listed.description ?? "",
        inputSchema: listed.inputSchema,
      },
    ];
  });
  const text = tools.length
    ? JSON.stringify({ tools })
    : JSON.stringify({ tools, note: "No tool matches: try other words, or fewer of them." });
  return { content: [{ type: "text", text }], structuredContent: { tools } };
}

function searchProblem(args: Record<string, unknown> | undefined): string | undefined {
  const { query, limit, ...rest } = args ?? {};
  const extra = Object.keys(rest);
  if (extra.length)
    return `search_tools takes "query" and "limit" only, not ${extra.map((k) => JSON.stringify(k.slice(0, 40))).join(", ")}`;
  if (typeof query !== "string" || query.trim() === "") return 'search_tools needs "query": a few words saying what the tool should do';
  if (query.length > MAX_QUERY_CHARS) return `"query" is ${query.length} characters long: at most ${MAX_QUERY_CHARS}`;
  if (limit !== undefined && (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_LIMIT))
    return `"limit" must be an integer from 1 to ${MAX_LIMIT}`;
  return undefined;
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
