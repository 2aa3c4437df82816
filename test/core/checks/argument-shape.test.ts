import { describe, expect, it } from "vitest";
import { DEFAULT_SHAPE_LIMITS, shapeError } from "../../../src/core/checks/argument-shape.js";

describe("shapeError", () => {
  it("passes what stays within the limits, scalars and empty containers included", () => {
    for (const v of [5, "x", null, [], {}, { a: { b: [[1, { c: "ok" }]] } }]) expect(shapeError(v)).toBeUndefined();
    const limits = { maxDepth: 3, maxNodes: 6 };
    // six values in all: the object, the array a and its three numbers, b.
    expect(shapeError({ a: [1, 2, 3], b: true }, limits)).toBeUndefined();
  });

  it("names the first value past maxNodes, counting scalars, objects and arrays alike", () => {
    const limits = { maxDepth: 10, maxNodes: 5 };
    expect(shapeError({ a: [1, 2, 3], b: true }, limits)).toEqual({ pointer: "/a/2", message: "holds more than 5 values in all" });
    expect(shapeError({ list: Array.from({ length: 100_001 }, () => 0) })).toEqual({
      pointer: "/list/99998",
      message: "holds more than 100000 values in all",
    });
    expect(shapeError("x", { maxDepth: 1, maxNodes: 0 }, "/answer/data")).toMatchObject({ pointer: "/answer/data" });
  });

  it("names the first container past maxDepth, escaping the pointer's ~ and /", () => {
    expect(shapeError({ a: [1, { "x/y~": [1] }] }, { maxDepth: 3, maxNodes: 100 }, "/args")).toEqual({
      pointer: "/args/a/1/x~1y~0",
      message: "nests deeper than 3 levels",
    });
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < DEFAULT_SHAPE_LIMITS.maxDepth; i++) at = (at.x = {}) as Record<string, unknown>;
    expect(shapeError(deep)?.pointer).toBe("/x".repeat(DEFAULT_SHAPE_LIMITS.maxDepth));
  });
});
