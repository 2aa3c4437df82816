import { ToolnexusError } from "../../core/errors.js";
import type { Tool, ToolInfo } from "../../core/types.js";
import type { Caller } from "../auth/caller.js";
import type { ServiceState } from "../service/service-state.js";

// Past these bounds a cache starts over: a bound, not an LRU (views change with every reload).
const MAX_VIEWS = 256;
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

/** What one caller sees of the catalog now: its tools, in catalog order, and the forms made of them. */
export class CallerView {
  private readonly forms = new Map<string, unknown>();

  constructor(readonly tools: readonly Tool[]) {}

  /** The form `key` of this view (a listing, a document): built by `build` once, then the same value. */
  form<T>(key: string, build: () => T): T {
    if (this.forms.has(key)) return this.forms.get(key) as T;
    const value = build();
    if (this.forms.size >= MAX_FORMS) this.forms.clear();
    this.forms.set(key, value);
    return value;
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
  private readonly views = new Map<string, CallerView>();

  constructor(private readonly state: ServiceState) {}

  /** The caller's view of the catalog in service now; NOT_READY while loading or draining. */
  of(caller: Caller): CallerView {
    const tk = this.state.toolkit();
    const key = `${this.state.viewVersion(tk)}|${caller.viewKey ?? caller.id}`;
    let view = this.views.get(key);
    if (!view) {
      const { hold } = this.state;
      view = new CallerView(tk.tools().filter((t) => caller.allows(t.name) && !hold.withheld(t.name)));
      if (this.views.size >= MAX_VIEWS) this.views.clear();
      this.views.set(key, view);
    }
    return view;
  }
}
