import type { Logger, Tool, ToolSource } from "./types.js";

// Catalog order, and which source wins a name: MCP → skill → builtin → http/openapi → a2a → native/custom.
const ORDER: Record<ToolSource, number> = { mcp: 0, skill: 1, builtin: 2, http: 3, a2a: 4, native: 5, custom: 5 };

/** The tools of one source, and how a warning names that source (`mcp/github`, `native`). */
export interface ToolGroup {
  label: string;
  tools: readonly Tool[];
}

/**
 * Assembles the catalog deterministically: drop builtins shadowed by a native/custom tool,
 * order by source, refuse a name already taken by an earlier tool (first wins, with a warning
 * naming both sources; once per pair when `warned` is given), then apply `disableTools`.
 * `groups` holds each source's tools in configuration order.
 */
export function assembleTools(groups: readonly ToolGroup[], disableTools: readonly string[], logger: Logger, warned?: Set<string>): Tool[] {
  const all = groups.flatMap((g) => g.tools.map((tool) => ({ tool, label: g.label })));
  const hostNames = new Set(all.filter(({ tool: t }) => t.source === "native" || t.source === "custom").map(({ tool: t }) => t.name));
  const candidates = all
    .filter(({ tool: t }) => !(t.source === "builtin" && hostNames.has(t.name)))
    .map((entry, index) => ({ ...entry, index }))
    // Array.prototype.sort is stable, but the index keeps the intent explicit.
    .sort((a, b) => ORDER[a.tool.source] - ORDER[b.tool.source] || a.index - b.index);

  const disabled = new Set(disableTools);
  const seen = new Map<string, string>();
  const out: Tool[] = [];
  for (const { tool, label } of candidates) {
    const first = seen.get(tool.name);
    if (first !== undefined) {
      const key = `${tool.name}\n${first}\n${label}`;
      if (!warned?.has(key)) {
        warned?.add(key);
        logger.warn(
          { tool: tool.name, kept: first, dropped: label },
          "tool name collides with an earlier tool; refused (set a different prefix on one of the sources)",
        );
      }
      continue;
    }
    seen.set(tool.name, label);
    if (!disabled.has(tool.name)) out.push(tool);
  }
  return out;
}

/**
 * The `disableTools` entries that name no tool of `groups`: a typo, or a tool of a source that
 * failed to load. Worth a warning, since the tool the operator meant to hide may be listed.
 */
export function unmatchedDisabled(groups: readonly ToolGroup[], disableTools: readonly string[]): string[] {
  const names = new Set(groups.flatMap((g) => g.tools.map((t) => t.name)));
  return [...new Set(disableTools)].filter((n) => !names.has(n));
}
