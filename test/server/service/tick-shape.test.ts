import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const source = path.resolve(import.meta.dirname, "../../../src/server/service/tick-shape.ts");

// V8 internals are only visible with --allow-natives-syntax, which needs a process of its own.
// The child pins, lets every other nextTick record die, forces full collections (when the
// unpinned record maps would go), then checks the pinned record outlived them and shares its
// hidden class with a fresh one.
const CHILD = `
import { executionAsyncResource } from "node:async_hooks";
const { pinTickShape } = await import(${JSON.stringify(source)});
// Only a weak reference here: what keeps the record alive must be the module.
const ref = new WeakRef(await pinTickShape());
await new Promise((r) => setTimeout(r, 5));
globalThis.gc();
globalThis.gc();
const kept = ref.deref();
const fresh = await new Promise((r) => process.nextTick(() => r(executionAsyncResource())));
console.log(JSON.stringify({
  kept: kept !== undefined,
  idempotent: (await pinTickShape()) === kept,
  sameShape: kept !== undefined && %HaveSameMap(kept, fresh),
  keys: [Object.keys(kept ?? {}), Object.keys(fresh)],
}));
`;

async function run(): Promise<{ kept: boolean; idempotent: boolean; sameShape: boolean; keys: string[][] }> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    "--allow-natives-syntax",
    "--expose-gc",
    "--input-type=module",
    "-e",
    CHILD,
  ]);
  return JSON.parse(stdout);
}

describe("the nextTick record pin", () => {
  it("holds one of Node's own records, sharing its hidden class with records made after full collections", async () => {
    const got = await run();
    expect(got.keys).toEqual([
      ["callback", "args"],
      ["callback", "args"],
    ]);
    expect(got).toMatchObject({ kept: true, idempotent: true, sameShape: true });
  });
});
