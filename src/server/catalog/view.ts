import { createHash } from "node:crypto";
import { ToolnexusError } from "../../core/errors.js";
import type { Tool, ToolInfo } from "../../core/types.js";
import type { Caller } from "../auth/caller.js";
import type { ServiceState } from "../service/service-state.js";
import type { Toolkit } from "../../core/toolkit.js";
import { ToolSearch } from "./search.js";

// Distinct tool sets whose views (and the forms built of them) are kept, least recently used
// first out: each may hold a serialized listing and an MCP listing.
const MAX_VIEWS = 32;
// Callers remembered with the tool set they see: two short keys each (never a reference to a
// view, which would keep a view the views' bound let go, with its listings and index, alive).
const MAX_CALLERS = 2048;
// Past this bound a view's forms start over (their keys are few: a listing per query shape).
const MAX_FORMS = 64;

/** The listing shape of a tool. */
export function toInfo(t: Tool): ToolInfo {
  return { name: t.name, description: t.description, inputSchema: t.inputSchema, source: t.source };
}

/**
 * The tool a caller asked for: 404 when it does not exist or the caller may not see it, 409
 * when pinning withholds it (its definition changed and awaits an operator's approval).
 */
export function visibleTool(state: ServiceState, caller: Caller, name: string): Tool {
  const tool = state.toolkit().get(name);
  if (!tool || !caller.allows(name)) throw new ToolnexusError("TOOL_NOT_FOUND", `No tool named "${name}"`);
  if (state.hold.withheld(name))
    throw new ToolnexusError(
      "TOOL_DEFINITION_CHANGED",
      `The definition of "${name}" is not the approved one; it is withheld until an operator approves it`,
    );
  return tool;
}

/** Ranked search over what one caller sees (`GET /tools?q=`, `search_tools`). */
export interface ViewSearch {
  /** The caller's tools that best match `query`, best first, at most `limit`; `keep` filters before the limit. */
  search(query: string, limit: number, keep?: (t: Tool) => boolean): Tool[];
}

/** What one caller sees of the catalog now: its tools, in catalog order, and the forms made of them. */
export class CallerView {
  private readonly forms = new Map<string, unknown>();

  /** `catalogIndex`: the search index of the whole catalog this view was cut from. */
  constructor(
    readonly tools: readonly Tool[],
    private readonly catalogIndex: () => ToolSearch,
  ) {}

  /** The form `key` of this view (a listing, a document): built by `build` once, then the same value. */
  form<T>(key: string, build: () => T): T {
    if (this.forms.has(key)) return this.forms.get(key) as T;
    const value = build();
    if (this.forms.size >= MAX_FORMS) this.forms.clear();
    this.forms.set(key, value);
    return value;
  }

  /**
   * Search over this view: the catalog's one index, each hit kept only when it is one of this
   * view's tools, before the limit counts it, so a caller never finds a tool it may not use. One
   * index per catalog rather than one per view: a thousand callers with a thousand tool sets
   * would otherwise each build (and drop, past the views' bound) an index of their own. Ranking
   * weighs words by the whole catalog; only the order of the caller's own tools comes of it.
   */
  search(): ViewSearch {
    return this.form("search", () => {
      const members = new Set(this.tools);
      const index = this.catalogIndex();
      return {
        search: (query, limit, keep) => index.search(query, limit, (t) => members.has(t) && (!keep || keep(t))),
      } satisfies ViewSearch;
    });
  }
}

/** A map that forgets its least recently used entry past `max` entries. */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get size(): number {
    return this.map.size;
  }
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) return undefined;
    // Most recent last: a Map iterates in insertion order.
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }
  set(key: string, v: V): void {
    this.map.delete(key);
    this.map.set(key, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
}

/**
 * The per-caller views of the catalog that `GET /tools`, the per-tool OpenAPI documents and
 * `/mcp`'s `tools/list` share: one cache, keyed by the catalog's version (with what pinning
 * holds back: an approval or a new hold is a new version) and the caller's `viewKey` (callers
 * who may use the same tools share a view), so a reload or another set of tools is a new view
 * and every form derived from the old one goes with it.
 */
export class CatalogViews {
  // Caller (catalog version and viewKey) → its view; views by catalog version and tool set, so
  // callers with different grants that come to the same tools share one view and its forms.
  private readonly callers = new Lru<string>(MAX_CALLERS);
  private readonly views = new Lru<CallerView>(MAX_VIEWS);
  // The search index of each catalog (a reload's new toolkit gets its own; the old one goes with it).
  private readonly indexes = new WeakMap<Toolkit, ToolSearch>();

  constructor(private readonly state: ServiceState) {}

  /** How many distinct views are kept now (each with its forms); at most a fixed bound. */
  get size(): number {
    return this.views.size;
  }

  /** The caller's view of the catalog in service now; NOT_READY while loading or draining. */
  of(caller: Caller): CallerView {
    const tk = this.state.toolkit();
    const version = this.state.viewVersion(tk);
    const key = `${version}|${caller.viewKey ?? caller.id}`;
    const knownSet = this.callers.get(key);
    const known = knownSet === undefined ? undefined : this.views.get(knownSet);
    if (known) return known;
    const { hold } = this.state;
    const tools = tk.tools().filter((t) => caller.allows(t.name) && !hold.withheld(t.name));
    const setKey = `${version}|${toolSetKey(tools)}`;
    let view = this.views.get(setKey);
    if (!view) {
      view = new CallerView(tools, () => this.indexOf(tk));
      this.views.set(setKey, view);
    }
    this.callers.set(key, setKey);
    return view;
  }

  // Built on the first search of a catalog, over every tool it has (withheld ones too: a view
  // never holds those, so its filter drops them).
  private indexOf(tk: Toolkit): ToolSearch {
    let index = this.indexes.get(tk);
    if (!index) {
      index = new ToolSearch(tk.tools());
      this.indexes.set(tk, index);
    }
    return index;
  }
}

// A short fingerprint of which tools a view holds (names are unique in a catalog).
function toolSetKey(tools: readonly Tool[]): string {
  const h = createHash("sha1");
  for (const t of tools) h.update(t.name).update("\0");
  return `${tools.length}:${h.digest("base64url")}`;
}
