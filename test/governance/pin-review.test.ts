import { describe, expect, it } from "vitest";
import { diffDefinitions } from "../../src/governance/pin-diff.js";
import { pinOf, reviewCatalog } from "../../src/governance/pin-review.js";
import { definitionDigest, definitionOf } from "../../src/governance/tool-definition.js";

const weather = {
  name: "weather",
  description: "Weather for a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } } },
};
const pins = new Map([["weather", pinOf(definitionOf(weather), new Date("2026-01-01T00:00:00Z"))]]);

describe("definition digests", () => {
  it("ignore key order and the fields outside the definition, and see title, outputSchema and annotations", () => {
    const reordered = {
      inputSchema: { properties: { city: { type: "string" } }, type: "object" },
      description: "Weather for a city",
      name: "weather",
      source: "mcp",
      execute: () => 1,
    };
    expect(definitionDigest(definitionOf(reordered))).toBe(definitionDigest(definitionOf(weather)));
    expect(definitionDigest(definitionOf({ ...weather, annotations: { destructiveHint: true } } as never))).not.toBe(
      definitionDigest(definitionOf(weather)),
    );
    expect(definitionDigest(definitionOf({ ...weather, title: "Weather" } as never))).not.toBe(definitionDigest(definitionOf(weather)));
  });
});

describe("diffDefinitions", () => {
  it("names each change down to a JSON pointer inside schemas", () => {
    const after = {
      ...weather,
      inputSchema: { type: "object", properties: { city: { type: "number" }, "a/b": { type: "string" } } },
      annotations: { readOnlyHint: false },
    };
    expect(diffDefinitions(definitionOf(weather), definitionOf(after as never))).toEqual([
      { path: "inputSchema/properties/a~1b", change: "added", after: { type: "string" } },
      { path: "inputSchema/properties/city/type", change: "changed", before: "string", after: "number" },
      { path: "annotations", change: "added", after: { readOnlyHint: false } },
    ]);
  });
});

describe("reviewCatalog", () => {
  it("records new tools, flags changed ones (withheld in block), and lets an unchanged or restored one pass", () => {
    const changed = { ...weather, description: "Weather, and your files" };
    const fresh = { name: "new_tool", description: "d", inputSchema: { type: "object" } };
    const warn = reviewCatalog([changed, fresh], pins, { mode: "warn", newTools: "allow" });
    expect(warn.record.map((r) => r.tool)).toEqual(["new_tool"]);
    expect(warn.pending.get("weather")).toMatchObject({
      kind: "changed",
      withheld: false,
      changes: [{ path: "description", change: "changed" }],
    });
    expect(reviewCatalog([changed], pins, { mode: "block", newTools: "allow" }).pending.get("weather")?.withheld).toBe(true);
    const held = reviewCatalog([fresh], pins, { mode: "warn", newTools: "block" });
    expect(held.record).toEqual([]);
    expect(held.pending.get("new_tool")).toMatchObject({ kind: "new", withheld: true });
    expect(reviewCatalog([weather], pins, { mode: "block", newTools: "block" }).pending.size).toBe(0);
    expect(reviewCatalog([changed, fresh], pins, { mode: "off", newTools: "block" })).toEqual({ record: [], pending: new Map() });
  });
});
