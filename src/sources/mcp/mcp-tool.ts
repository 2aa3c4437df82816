import type { Tool as McpToolDef } from "@modelcontextprotocol/client";
import { sanitize } from "../../core/sanitize.js";
import type { JSONSchema, Tool, ToolContext, ToolResult } from "../../core/types.js";
import type { UpstreamAuth } from "../../core/upstream-auth.js";
import { exposedUri } from "../../core/surface/names.js";
import { rewriteToolMeta } from "../../core/surface/rewrite.js";

/** Runs one tool of a server by its original name. */
export type CallTool = (tool: string, args: Record<string, unknown>, ctx: ToolContext) => Promise<ToolResult>;

/**
 * The exposed name of a server's tool: `sanitize(prefix)_sanitize(tool)` (the prefix
 * defaults to the server's name), or the server's own name, sanitized, with `prefix: false`.
 */
export function mcpToolName(prefix: string | false, tool: string): string {
  return prefix === false ? sanitize(tool) : `${sanitize(prefix)}_${sanitize(tool)}`;
}

/** Converts a listed MCP tool into a catalog Tool whose execute goes through `call` (`upstreamAuth`: it gets the JWT caller's bearer, or one exchanged for it). */
export function toTool(prefix: string | false, def: McpToolDef, call: CallTool, upstreamAuth?: UpstreamAuth): Tool {
  // MCP requires an object schema; a server that omits `properties` still gets a usable one.
  const inputSchema: JSONSchema = { ...(def.inputSchema as JSONSchema), type: "object" };
  if (inputSchema.properties === undefined) inputSchema.properties = {};
  return {
    name: mcpToolName(prefix, def.name),
    description: def.description ?? def.title ?? "",
    inputSchema,
    source: "mcp",
    ...(upstreamAuth ? { forwardAuth: true, upstreamAuth } : {}),
    ...(def.title !== undefined ? { title: def.title } : {}),
    ...(def.outputSchema !== undefined ? { outputSchema: def.outputSchema as JSONSchema } : {}),
    ...(def.annotations !== undefined ? { annotations: def.annotations as Record<string, unknown> } : {}),
    ...(def.icons !== undefined ? { icons: def.icons as Record<string, unknown>[] } : {}),
    // An MCP App's `ui.resourceUri` points at the server's resource: shown as the catalog names it.
    ...(def._meta !== undefined ? { meta: rewriteToolMeta(def._meta as Record<string, unknown>, (u) => exposedUri(prefix, u)) } : {}),
    ...(taskSupportOf(def) ? { taskSupport: taskSupportOf(def) } : {}),
    execute: (args, ctx) => call(def.name, args ?? {}, ctx ?? {}),
  };
}

/** True for a tool that can only run as an MCP task, which a plain tools/call cannot do. */
export function requiresTask(def: McpToolDef): boolean {
  return taskSupportOf(def) === "required";
}

/** The task support a server declared for its tool (`execution.taskSupport`), when it allows tasks. */
function taskSupportOf(def: McpToolDef): "optional" | "required" | undefined {
  const support = (def as { execution?: { taskSupport?: string } }).execution?.taskSupport;
  return support === "optional" || support === "required" ? support : undefined;
}
