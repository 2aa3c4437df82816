/**
 * Rewrites every resource URI a server's answer carries into the catalog's form (names.ts):
 * embedded resources and resource links in tool and prompt results, the contents of a read,
 * and a tool's MCP Apps pointer (`_meta.ui.resourceUri`, and the flat `_meta["ui/resourceUri"]`).
 * Pure and copying: what the server sent is never changed in place, and anything that is not
 * one of these shapes passes as is.
 */

/** Maps one URI (a server's) to another (the catalog's), or back. */
export type UriMap = (uri: string) => string;

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** One content part (of a tool result or a prompt message) with its URIs mapped. */
function rewritePart(part: unknown, map: UriMap): unknown {
  if (!isObj(part)) return part;
  if (part.type === "resource_link" && typeof part.uri === "string") return { ...part, uri: map(part.uri) };
  if (part.type === "resource" && isObj(part.resource) && typeof part.resource.uri === "string")
    return { ...part, resource: { ...part.resource, uri: map(part.resource.uri) } };
  return part;
}

/** Content parts with their URIs mapped; anything not an array is left alone. */
export function rewriteParts<T>(parts: T, map: UriMap): T {
  return (Array.isArray(parts) ? parts.map((p) => rewritePart(p, map)) : parts) as T;
}

/** A `resources/read` result's contents with each item's `uri` mapped. */
export function rewriteContents<T>(contents: T, map: UriMap): T {
  if (!Array.isArray(contents)) return contents;
  return contents.map((c) => (isObj(c) && typeof c.uri === "string" ? { ...c, uri: map(c.uri) } : c)) as T;
}

/** A prompt's messages with the URI of each message's content part mapped. */
export function rewriteMessages<T>(messages: T, map: UriMap): T {
  if (!Array.isArray(messages)) return messages;
  return messages.map((m) => (isObj(m) && "content" in m ? { ...m, content: rewritePart(m.content, map) } : m)) as T;
}

/** A tool's `_meta` with its MCP Apps resource URI mapped (nested `ui.resourceUri` and flat `ui/resourceUri`). */
export function rewriteToolMeta<T>(meta: T, map: UriMap): T {
  if (!isObj(meta)) return meta;
  let out: Obj = meta;
  if (isObj(meta.ui) && typeof meta.ui.resourceUri === "string")
    out = { ...out, ui: { ...meta.ui, resourceUri: map(meta.ui.resourceUri) } };
  const flat = meta["ui/resourceUri"];
  if (typeof flat === "string") out = { ...out, "ui/resourceUri": map(flat) };
  return out as T;
}

/** The `ui://` resource a tool's `_meta` points at (nested or flat form), if any. */
export function uiResourceOf(meta: unknown): string | undefined {
  if (!isObj(meta)) return undefined;
  if (isObj(meta.ui) && typeof meta.ui.resourceUri === "string") return meta.ui.resourceUri;
  const flat = meta["ui/resourceUri"];
  return typeof flat === "string" ? flat : undefined;
}
