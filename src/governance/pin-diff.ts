import { canonicalJson } from "./canonical-json.js";
import type { Definition } from "./tool-definition.js";

/** One difference between a pinned definition and the one served now. */
export interface DefinitionChange {
  /** The field (description, title, inputSchema, …) and, inside a schema, a JSON pointer. */
  path: string;
  change: "added" | "removed" | "changed";
  before?: unknown;
  after?: unknown;
}

const FIELDS = [
  "name",
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
  "arguments",
  "uriTemplate",
  "mimeType",
] as const;
// A diff a person reads: past this many entries the rest is summed up in one.
const MAX_CHANGES = 50;

/**
 * What changed from `before` to `after`, field by field; inside schemas and annotations down to
 * the JSON pointer of each changed value, so a reviewer sees "inputSchema/properties/cmd added"
 * rather than two digests.
 */
export function diffDefinitions(before: Definition, after: Definition): DefinitionChange[] {
  const out: DefinitionChange[] = [];
  const b = before as unknown as Record<string, unknown>;
  const a = after as unknown as Record<string, unknown>;
  for (const f of FIELDS) walk(f, b[f], a[f], out);
  if (out.length > MAX_CHANGES) {
    const more = out.length - MAX_CHANGES;
    out.length = MAX_CHANGES;
    out.push({ path: "…", change: "changed", after: `${more} more changes` });
  }
  return out;
}

function walk(path: string, a: unknown, b: unknown, out: DefinitionChange[]): void {
  if (a === undefined && b === undefined) return;
  if (a === undefined) return void out.push({ path, change: "added", after: b });
  if (b === undefined) return void out.push({ path, change: "removed", before: a });
  if (isObject(a) && isObject(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) walk(`${path}/${escape(k)}`, a[k], b[k], out);
    return;
  }
  if (canonicalJson(a) !== canonicalJson(b)) out.push({ path, change: "changed", before: a, after: b });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// JSON pointer escaping (RFC 6901).
function escape(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}
