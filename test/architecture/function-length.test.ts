import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { functionLengths } from "./function-length.js";

// docs/architecture.md: functions under 100 lines, so each reads as one thing.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MAX_LINES = 100;

describe("the functions of src/", () => {
  it(`have bodies of at most ${MAX_LINES} lines`, () => {
    const long = functionLengths(root, "src")
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${f.where}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });

  it("are all measured: a long body in a fixture would be found", () => {
    // The measure itself can fail: this file's own describe callback spans its lines.
    const own = functionLengths(root, "test/architecture").find((f) => f.where.startsWith("test/architecture/function-length.test.ts"));
    expect(own?.lines).toBeGreaterThan(10);
  });
});
