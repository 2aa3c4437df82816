import { ToolnexusError } from "../../core/errors.js";
import { TOOL_FORMATS, TOOL_SOURCES } from "../http/schemas.js";

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
export function toolQueryError(query: { source?: unknown; format?: unknown }): ToolnexusError | undefined {
  const problems: string[] = [];
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
