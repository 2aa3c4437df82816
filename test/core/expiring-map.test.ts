import { describe, expect, it } from "vitest";
import { ExpiringMap } from "../../src/core/expiring-map.js";

describe("ExpiringMap", () => {
  it("keeps an entry until its own instant, and never one already past", () => {
    let now = 1_000;
    const m = new ExpiringMap<string>(() => now);
    m.set("a", "A", 2_000);
    m.set("late", "L", 1_000);
    expect(m.get("a")).toBe("A");
    expect(m.get("late")).toBeUndefined();
    now = 2_000;
    expect(m.get("a")).toBeUndefined();
    expect(m.size).toBe(0);
  });

  it("drops the entry inserted first past its bound, and forgets all on clear", () => {
    const m = new ExpiringMap<number>(() => 0, 2);
    m.set("a", 1, 10);
    m.set("b", 2, 10);
    m.set("c", 3, 10);
    expect([m.get("a"), m.get("b"), m.get("c")]).toEqual([undefined, 2, 3]);
    m.clear();
    expect(m.size).toBe(0);
  });
});
