import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeBuiltins, snapshot, type Builtins } from "./helpers.js";

let b: Builtins;
beforeAll(async () => {
  b = await makeBuiltins();
  await writeFile(path.join(b.outside, "secret.txt"), "top secret\n");
  await mkdir(path.join(b.ws, "sub"));
  await symlink(b.outside, path.join(b.ws, "sub", "out-dir"));
  await symlink(path.join(b.outside, "secret.txt"), path.join(b.ws, "out-file"));
  await symlink(path.join(b.outside, "created-through-link.txt"), path.join(b.ws, "dangling"));
});
afterAll(() => b.close());

// Each escape: the path given, and the rule the refusal must name.
const escapes = (): [string, string, RegExp][] => [
  ["dot-dot", "../outside/secret.txt", /refused: path "\.\.\/outside\/secret\.txt" climbs out of the workspace with "\.\."/],
  ["absolute", path.join(b.outside, "secret.txt"), /refused: absolute path ".*secret\.txt" is outside the workspace/],
  [
    "symlinked dir",
    "sub/out-dir/secret.txt",
    /refused: path "sub\/out-dir\/secret\.txt" resolves through a symbolic link to outside the workspace/,
  ],
  ["symlinked file", "out-file", /refused: path "out-file" resolves through a symbolic link to outside the workspace/],
  ["dangling symlink", "dangling", /refused: path "dangling" resolves through a symbolic link to outside the workspace/],
  ["new file under symlinked dir", "sub/out-dir/new/file.txt", /resolves through a symbolic link to outside the workspace/],
];

const calls: [string, (p: string) => Record<string, unknown>][] = [
  ["read", (p) => ({ path: p })],
  ["read", (p) => ({ path: p, offset: 1, limit: 1 })],
  ["write", (p) => ({ path: p, content: "pwned" })],
  ["edit", (p) => ({ path: p, oldString: "top", newString: "pwned" })],
  ["grep", (p) => ({ pattern: "secret", path: p })],
  ["glob", (p) => ({ pattern: "*", path: p })],
  ["bash", (p) => ({ command: "cat secret.txt; touch pwned", workdir: p })],
  ["apply_patch", (p) => ({ patchText: `*** Begin Patch\n*** Add File: ${p}\n+pwned\n*** End Patch` })],
  ["apply_patch", (p) => ({ patchText: `*** Begin Patch\n*** Update File: ${p}\n@@\n-top secret\n+pwned\n*** End Patch` })],
  ["apply_patch", (p) => ({ patchText: `*** Begin Patch\n*** Delete File: ${p}\n*** End Patch` })],
];

describe("every path argument is confined to the workspace", () => {
  for (const [tool, args] of calls) {
    it(`${tool} ${JSON.stringify(args("P"))} refuses each escape and touches nothing outside`, async () => {
      for (const [, p, rule] of escapes()) {
        const r = await b.run(tool, args(p));
        expect(r.isError, `${tool} with ${p}`).toBe(true);
        expect(r.output, `${tool} with ${p}`).toMatch(rule);
        expect(r.output).not.toContain("top secret");
      }
      expect(await snapshot(b.outside)).toEqual({ "secret.txt": "top secret\n" });
    });
  }
});
