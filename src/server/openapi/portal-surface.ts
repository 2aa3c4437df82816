import type { Caller } from "../auth/index.js";

/**
 * What the developer portal shows of a caller's MCP surface: its resources, resource templates
 * and prompts, as tables in the descriptions of the `resources` and `prompts` tags of the
 * portal's document. Every name, URI and description is an upstream's text: it is escaped for
 * Markdown and HTML, so it shows as the characters it is and never becomes a link, a tag or
 * markup.
 */

type Item = Record<string, unknown>;

/** A caller's surface as listed. */
export interface SurfaceListing {
  resources: readonly Item[];
  templates: readonly Item[];
  prompts: readonly Item[];
}

/** Lists a caller's surface (the surface folder's answer, handed in by buildServer). */
export type CallerSurface = (caller: Caller) => Promise<SurfaceListing>;

// A page that lists thousands of rows helps no one: the rest are one GET away.
const MAX_ROWS = 200;
const MAX_CELL = 300;

/** Text as one Markdown table cell showing exactly its characters. */
function cell(value: unknown): string {
  const text = typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value);
  const short = text.length > MAX_CELL ? `${text.slice(0, MAX_CELL)}…` : text;
  return short
    .replace(/[\r\n\t]+/g, " ")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[\\`*_{}[\]()#+\-.!|~:]/g, "\\$&");
}

function table(head: string[], rows: string[][], total: number, more: string): string {
  const lines = [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)];
  if (total > rows.length) lines.push("", `…and ${total - rows.length} more: ${more}`);
  return lines.join("\n");
}

/** The `resources` tag's description for this listing. */
function resourcesText(listing: SurfaceListing): string {
  const { resources, templates } = listing;
  const parts = [`**${resources.length} resources** this caller may read with \`GET /resources/read?uri=\`:`];
  if (resources.length)
    parts.push(
      table(
        ["URI", "name", "MIME type", "description"],
        resources.slice(0, MAX_ROWS).map((r) => [cell(r.uri), cell(r.name), cell(r.mimeType), cell(r.description)]),
        resources.length,
        "`GET /resources`",
      ),
    );
  if (templates.length)
    parts.push(
      `**${templates.length} resource templates**:`,
      table(
        ["URI template", "name", "description"],
        templates.slice(0, MAX_ROWS).map((t) => [cell(t.uriTemplate), cell(t.name), cell(t.description)]),
        templates.length,
        "`GET /resources/templates`",
      ),
    );
  return parts.join("\n\n");
}

/** The `prompts` tag's description for this listing. */
function promptsText(listing: SurfaceListing): string {
  const { prompts } = listing;
  const args = (p: Item) =>
    Array.isArray(p.arguments)
      ? (p.arguments as Item[]).map((a) => `${cell(a.name)}${a.required === true ? " \\(required\\)" : ""}`).join(", ")
      : "";
  const parts = [`**${prompts.length} prompts** this caller may get with \`POST /prompts/{name}/get\`:`];
  if (prompts.length)
    parts.push(
      table(
        ["name", "arguments", "description"],
        prompts.slice(0, MAX_ROWS).map((p) => [cell(p.name), args(p), cell(p.description)]),
        prompts.length,
        "`GET /prompts`",
      ),
    );
  return parts.join("\n\n");
}

/** The document with its `resources` and `prompts` tags describing the caller's surface. */
export function withSurfaceTags(doc: Record<string, unknown>, listing: SurfaceListing): Record<string, unknown> {
  const tags = Array.isArray(doc.tags) ? (doc.tags as Item[]) : [];
  const text: Record<string, string> = { resources: resourcesText(listing), prompts: promptsText(listing) };
  const named = new Set(tags.map((t) => t.name));
  const next = tags.map((t) => (typeof t.name === "string" && t.name in text ? { ...t, description: text[t.name] } : t));
  for (const name of Object.keys(text)) if (!named.has(name)) next.push({ name, description: text[name] });
  return { ...doc, tags: next };
}
