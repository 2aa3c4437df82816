/** What a tool filter kept, and the names it mentions that the server does not have. */
export interface FilterResult<T> {
  kept: T[];
  unknown: string[];
}

/**
 * Applies a per-server `tools` map to listed tools, by their original
 * names: absent or empty ⇒ all; any `true` ⇒ only the `true` ones; only `false` ⇒ all but those.
 */
export function filterTools<T extends { name: string }>(tools: readonly T[], filter: Record<string, boolean> | undefined): FilterResult<T> {
  if (!filter || Object.keys(filter).length === 0) return { kept: [...tools], unknown: [] };
  const names = new Set(tools.map((t) => t.name));
  const unknown = Object.keys(filter).filter((n) => !names.has(n));
  const allowlist = Object.values(filter).some((v) => v);
  const kept = tools.filter((t) => (allowlist ? filter[t.name] === true : filter[t.name] !== false));
  return { kept, unknown };
}
