// Ranked search over the catalog's tools: the index behind `GET /tools?q=` and `/mcp`'s
// `search_tools`. Built once per catalog (at its first search), never per request; each caller's
// view filters the hits to its own tools before any is counted (catalog/view.ts), so a caller can
// never find a tool it may not use.
import MiniSearch from "minisearch";
import { stemmer } from "stemmer";
import type { Tool } from "../../core/types.js";

/** The longest query searched, in characters (a longer one is refused where it enters). */
export const MAX_QUERY_CHARS = 500;
/** The most results one search answers, and the default. */
export const MAX_SEARCH_LIMIT = 100;
export const DEFAULT_SEARCH_LIMIT = 20;
// Words past these are not searched: a query is a few words, and fuzzy matching costs per word.
const MAX_QUERY_TERMS = 24;
// What a tool's text may weigh in the index: a huge description is not more relevant.
const MAX_FIELD_CHARS = 4000;

// Words that say nothing about which tool is meant.
const STOP = new Set(
  (
    "a an the and or but of to in on at by for from with into onto as is are was be been it its this that these those " +
    "i me my we our you your he she they them their there here what which who whom how when where why do does can " +
    "could would should will shall may might please some any all each every me via using use about need want"
  ).split(" "),
);

// A few words agents use for the same action; the query side only (the index keeps what tools say).
const SYNONYMS: Record<string, string[]> = {
  remove: ["delete"],
  delete: ["remove"],
  erase: ["delete"],
  make: ["create"],
  add: ["create"],
  new: ["create"],
  create: ["add"],
  show: ["get", "list"],
  fetch: ["get"],
  retrieve: ["get"],
  read: ["get"],
  find: ["search"],
  look: ["search"],
  lookup: ["search"],
  modify: ["update"],
  change: ["update"],
  edit: ["update"],
  run: ["execute"],
  execute: ["run"],
  send: ["post"],
  post: ["send"],
  write: ["create", "update"],
  folder: ["directory"],
  directory: ["folder"],
};

// Unicode separators and punctuation (an underscore is punctuation: `create_issue` is two words).
const SPLIT = /[\n\r\p{Z}\p{P}\p{S}]+/u;

/** Words of `text`, a camelCase name split too (`createIssue` is two words). */
function tokenize(text: string): string[] {
  return text
    .slice(0, MAX_FIELD_CHARS)
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(SPLIT)
    .filter(Boolean);
}

/** A word as the index keeps it: lower case, English stem; a stop word is dropped. */
function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  if (STOP.has(lower) || lower.length > 64) return null;
  return stemmer(lower);
}

/** A query word: its stem and the stems of its few synonyms. */
function processQueryTerm(term: string): string[] | null {
  const lower = term.toLowerCase();
  const stem = processTerm(lower);
  if (stem === null) return null;
  return [stem, ...(SYNONYMS[lower] ?? []).map((w) => stemmer(w))];
}

// Typos: none in a short word, one in a medium one, two in a long one.
const fuzzy = (term: string): number | false => (term.length <= 3 ? false : term.length <= 6 ? 1 : 2);

/** The parameter names and descriptions of a tool's input schema (its top-level properties). */
function paramsText(tool: Tool): string {
  const props = (tool.inputSchema as { properties?: unknown } | undefined)?.properties;
  if (typeof props !== "object" || props === null) return "";
  return Object.entries(props as Record<string, unknown>)
    .map(([name, s]) => {
      const d = (s as { description?: unknown } | null)?.description;
      return typeof d === "string" ? `${name} ${d}` : name;
    })
    .join(" ");
}

/**
 * The search index of one list of tools: BM25 ranking (MiniSearch) over name, title,
 * description and parameters, English stemming, prefix matching and typo tolerance.
 */
export class ToolSearch {
  private readonly index: MiniSearch<{ id: number }>;

  constructor(private readonly tools: readonly Tool[]) {
    this.index = new MiniSearch<{ id: number }>({
      fields: ["name", "title", "description", "params"],
      extractField: (doc, field) => {
        const { id } = doc as { id: number };
        if (field === "id") return String(id);
        const t = tools[id] as Tool;
        if (field === "name") return t.name;
        if (field === "title") return t.title ?? "";
        if (field === "description") return t.description ?? "";
        return paramsText(t);
      },
      tokenize,
      processTerm,
      searchOptions: {
        boost: { name: 3, title: 2, description: 1, params: 0.5 },
        prefix: (term) => term.length >= 3,
        fuzzy,
        maxFuzzy: 2,
        combineWith: "OR",
        tokenize: (q) => tokenize(q).slice(0, MAX_QUERY_TERMS),
        processTerm: processQueryTerm,
      },
    });
    this.index.addAll(tools.map((_, id) => ({ id })));
  }

  /** The tools that best match `query`, best first, at most `limit`; `keep` filters before the limit. */
  search(query: string, limit: number, keep?: (t: Tool) => boolean): Tool[] {
    const out: Tool[] = [];
    for (const hit of this.index.search(query.slice(0, MAX_QUERY_CHARS))) {
      const tool = this.tools[hit.id as number] as Tool;
      if (keep && !keep(tool)) continue;
      out.push(tool);
      if (out.length >= limit) break;
    }
    return out;
  }
}
