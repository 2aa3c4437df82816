import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workspace } from "../../../src/sources/builtins/workspace/workspace.js";

let base: string;
let ws: Workspace;
beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "tn-ws-")));
  ws = await Workspace.open(path.join(base, "ws"));
  await mkdir(path.join(base, "outside"));
  await writeFile(path.join(base, "outside", "secret.txt"), "secret");
  await mkdir(path.join(base, "ws", "sub"));
  await writeFile(path.join(base, "ws", "sub", "a.txt"), "a");
  await symlink(path.join(base, "outside"), path.join(base, "ws", "out-dir"));
  await symlink(path.join(base, "outside", "secret.txt"), path.join(base, "ws", "out-file"));
  await symlink(path.join(base, "outside", "not-yet.txt"), path.join(base, "ws", "dangling"));
  await symlink("sub", path.join(base, "ws", "in-dir"));
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe("Workspace.resolve", () => {
  it("creates the workspace directory when missing", () => {
    expect(ws.root).toBe(path.join(base, "ws"));
  });

  it("resolves relative paths against the root, and empty to the root", async () => {
    expect(await ws.resolve("sub/a.txt")).toBe(path.join(ws.root, "sub/a.txt"));
    expect(await ws.resolve(undefined)).toBe(ws.root);
    expect(await ws.resolve("new/dir/file.txt")).toBe(path.join(ws.root, "new/dir/file.txt"));
    expect(await ws.resolve("sub/../sub/a.txt")).toBe(path.join(ws.root, "sub/a.txt"));
  });

  it("accepts absolute paths inside the workspace", async () => {
    expect(await ws.resolve(path.join(ws.root, "sub", "a.txt"))).toBe(path.join(ws.root, "sub/a.txt"));
  });

  it("follows symbolic links that stay inside", async () => {
    expect(await ws.resolve("in-dir/a.txt")).toBe(path.join(ws.root, "sub/a.txt"));
  });

  it.each([
    ["../outside/secret.txt", /climbs out of the workspace with "\.\."/],
    ["sub/../../outside", /climbs out of the workspace with "\.\."/],
    ["..", /climbs out/],
    ["/etc/passwd", /absolute path "\/etc\/passwd" is outside the workspace/],
    ["out-dir/secret.txt", /resolves through a symbolic link to outside the workspace/],
    ["out-file", /symbolic link to outside/],
    ["out-dir/new-file.txt", /symbolic link to outside/],
    ["out-dir/deeper/new-file.txt", /symbolic link to outside/],
    ["dangling", /symbolic link to outside/],
    ["a\0b", /NUL byte/],
  ])("refuses %j", async (p, rule) => {
    await expect(ws.resolve(p)).rejects.toThrow(rule);
  });

  it("refuses an absolute path outside, even a sibling with the root as prefix", async () => {
    await writeFile(path.join(base, "ws-evil"), "x");
    await expect(ws.resolve(path.join(base, "ws-evil"))).rejects.toThrow(/outside the workspace/);
  });

  it("shows paths relative to the root", () => {
    expect(ws.display(path.join(ws.root, "sub", "a.txt"))).toBe("sub/a.txt");
    expect(ws.display(ws.root)).toBe(".");
  });
});
