import { ToolnexusError } from "../../core/errors.js";
import { TOOL_FORMATS, TOOL_SOURCES } from "../http/schemas/catalog.js";
import { MAX_QUERY_CHARS, MAX_SEARCH_LIMIT } from "./search.js";

// Names a newcomer reaches for that are not sources of their own.
const HINTS: Record<string, string> = {
  openapi: 'tools imported from OpenAPI documents are listed with source "http" (?source=http)',
  plugin: 'plugin tools are listed with source "native"',
  plugins: 'plugin tools are listed with source "native"',
  skills: 'the skills tool has source "skill"',
  builtins: 'built-in tools have source "builtin"',
};

/**
 * Checks `GET /tools`' query before schema validation so that an unknown `?source=` or
 * `?format=` gets one clear 400 naming the allowed values (instead of an empty list, or the
 * validator's one line per enum branch).
 */
export function toolQueryError(query: { source?: unknown; format?: unknown; q?: unknown; limit?: unknown }): ToolnexusError | undefined {
  const problems: string[] = searchProblems(query);
  if (typeof query.source === "string") {
    const unknown = query.source
      .split(",")
      .map((s) => s.trim())
      .filter((s) => !(TOOL_SOURCES as readonly string[]).includes(s));
    for (const s of unknown) problems.push(`?source=${s} is not a tool source${HINTS[s] ? `: ${HINTS[s]}` : ""}`);
    if (unknown.length) problems.push(`sources are ${TOOL_SOURCES.join(", ")} (comma-separated)`);
  }
  if (query.format !== undefined && !(TOOL_FORMATS as readonly unknown[]).includes(query.format)) {
    problems.push(`?format=${String(query.format)} is not a format: use one of ${TOOL_FORMATS.join(", ")}`);
  }
  return problems.length ? new ToolnexusError("INVALID_REQUEST", `${problems.join("; ")}.`) : undefined;
}

// `?q=` and `?limit=`: one sentence each that says what to send instead.
function searchProblems({ q, limit }: { q?: unknown; limit?: unknown }): string[] {
  const problems: string[] = [];
  if (Array.isArray(q)) problems.push("?q= is given more than once: send one query");
  else if (typeof q === "string" && q.trim() === "")
    problems.push("?q= is empty: give the words to search for, or leave ?q= out to list every tool");
  else if (typeof q === "string" && q.length > MAX_QUERY_CHARS)
    problems.push(`?q= is ${q.length} characters long: at most ${MAX_QUERY_CHARS}`);
  if (limit !== undefined) {
    if (q === undefined) problems.push("?limit= bounds a search: give ?q= too");
    else if (typeof limit !== "string" || !/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_SEARCH_LIMIT)
      problems.push(`?limit=${String(limit).slice(0, 20)} is not a number from 1 to ${MAX_SEARCH_LIMIT}`);
  }
  return problems;
}
