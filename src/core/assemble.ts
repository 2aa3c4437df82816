import type { Logger, Tool, ToolSource } from "./types.js";

// Catalog order, and which source wins a name: MCP → skill → builtin → http/openapi → a2a → native/custom.
const ORDER: Record<ToolSource, number> = { mcp: 0, skill: 1, builtin: 2, http: 3, a2a: 4, native: 5, custom: 5 };

/**
 * Assembles the catalog deterministically: drop builtins shadowed by a native/custom tool,
 * order by source, dedupe by name (first wins, with a warning), then apply `disableTools`.
 * `groups` holds each source's tools in configuration order.
 */
export function assembleTools(groups: readonly (readonly Tool[])[], disableTools: readonly string[], logger: Logger): Tool[] {
  const all = groups.flat();
  const hostNames = new Set(all.filter((t) => t.source === "native" || t.source === "custom").map((t) => t.name));
  const candidates = all
    .filter((t) => !(t.source === "builtin" && hostNames.has(t.name)))
    .map((tool, index) => ({ tool, index }))
    // Array.prototype.sort is stable, but the index keeps the intent explicit.
    .sort((a, b) => ORDER[a.tool.source] - ORDER[b.tool.source] || a.index - b.index);

  const disabled = new Set(disableTools);
  const seen = new Map<string, ToolSource>();
  const out: Tool[] = [];
  for (const { tool } of candidates) {
    const first = seen.get(tool.name);
    if (first !== undefined) {
      logger.warn({ tool: tool.name, kept: first, dropped: tool.source }, "duplicate tool name; the first one wins");
      continue;
    }
    seen.set(tool.name, tool.source);
    if (!disabled.has(tool.name)) out.push(tool);
  }
  return out;
}

/**
 * The `disableTools` entries that name no tool of `groups`: a typo, or a tool of a source that
 * failed to load. Worth a warning, since the tool the operator meant to hide may be listed.
 */
export function unmatchedDisabled(groups: readonly (readonly Tool[])[], disableTools: readonly string[]): string[] {
  const names = new Set(groups.flat().map((t) => t.name));
  return [...new Set(disableTools)].filter((n) => !names.has(n));
}
