import { describe, expect, it } from "vitest";
import type { Tool } from "../../../src/core/types.js";
import type { Caller } from "../../../src/server/auth/caller.js";
import { CatalogViews } from "../../../src/server/catalog/view.js";
import type { ServiceState } from "../../../src/server/service/service-state.js";

// The per-caller views stay bounded however many distinct callers there are, and callers who
// come to the same tools share one view (and so its listings and search index).

const tools: Tool[] = Array.from({ length: 2000 }, (_, i) => ({
  name: `tool_${i}`,
  description: `tool number ${i}`,
  inputSchema: { type: "object" },
  source: "native",
  execute: () => Promise.resolve({ output: "", isError: false }),
}));

/** The state CatalogViews reads: a toolkit, its view version, and what pinning holds back. */
function stateOf(version: { v: string }): ServiceState {
  const tk = { tools: () => tools };
  return { toolkit: () => tk, viewVersion: () => version.v, hold: { withheld: () => false } } as unknown as ServiceState;
}

/** Caller `i`, who may use tools 0 to `upTo`. */
const caller = (i: number, upTo: number): Caller => ({
  id: `key-${i}`,
  viewKey: `key:${i}`,
  allows: (name) => Number(name.slice(5)) <= upTo,
});

describe("catalog views", () => {
  it("1,000 distinct callers with distinct tools keep at most 32 views", () => {
    const views = new CatalogViews(stateOf({ v: "1" }));
    for (let i = 0; i < 1000; i++) views.of(caller(i, i)).form("listing", () => ({}));
    expect(views.size).toBeLessThanOrEqual(32);
    // The least recently used go first: the last caller's view is still the one kept.
    const last = views.of(caller(999, 999));
    expect(views.of(caller(999, 999))).toBe(last);
    expect(last.tools).toHaveLength(1000);
  });

  it("a view let go by the bound is not kept alive by the callers who saw it", () => {
    const views = new CatalogViews(stateOf({ v: "1" }));
    const first = views.of(caller(0, 0));
    for (let i = 1; i < 1000; i++) views.of(caller(i, i));
    // Caller 0 is still remembered (2,048 callers), its view is not: it is built afresh.
    const again = views.of(caller(0, 0));
    expect(again).not.toBe(first);
    expect(again.tools.map((t) => t.name)).toEqual(["tool_0"]);
  });

  it("1,000 distinct callers with the same tools share one view, its forms and its search index", () => {
    const views = new CatalogViews(stateOf({ v: "1" }));
    const first = views.of(caller(0, 99));
    const index = first.search();
    for (let i = 1; i < 1000; i++) expect(views.of(caller(i, 99))).toBe(first);
    expect(views.size).toBe(1);
    expect(views.of(caller(500, 99)).search()).toBe(index);
  });

  it("a new catalog version is a new view, with its own search index", () => {
    const version = { v: "1" };
    const views = new CatalogViews(stateOf(version));
    const before = views.of(caller(1, 10));
    const index = before.search();
    version.v = "2";
    const after = views.of(caller(1, 10));
    expect(after).not.toBe(before);
    expect(after.search()).not.toBe(index);
    expect(
      after
        .search()
        .search("tool number 3", 5)
        .map((t) => t.name),
    ).toContain("tool_3");
  });

  it("every view searches the catalog's one index and finds only its own tools, the limit counted after", () => {
    const views = new CatalogViews(stateOf({ v: "1" }));
    const names = (upTo: number, limit: number) =>
      views
        .of(caller(upTo, upTo))
        .search()
        .search("tool number", limit)
        .map((t) => t.name);
    // All 2,000 tools match; a view of three finds its three, however high the limit.
    expect(names(2, 50).sort()).toEqual(["tool_0", "tool_1", "tool_2"]);
    const some = names(10, 5);
    expect(some).toHaveLength(5);
    for (const name of some) expect(Number(name.slice(5))).toBeLessThanOrEqual(10);
    // An exact word ranks its own tool first within the view.
    expect(views.of(caller(3, 1500)).search().search("1234", 3)[0]?.name).toBe("tool_1234");
    expect(
      views
        .of(caller(4, 1000))
        .search()
        .search("1234", 100)
        .map((t) => t.name),
    ).not.toContain("tool_1234");
  });
});
