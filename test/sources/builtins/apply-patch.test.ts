import { readFile, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { makeBuiltins, snapshot, type Builtins } from "./helpers.js";

let b: Builtins;
beforeAll(async () => {
  b = await makeBuiltins();
});
afterAll(() => b.close());

const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");
const read = (rel: string) => readFile(path.join(b.ws, rel), "utf8");

beforeEach(async () => {
  await b.run("bash", { command: "rm -rf ./* ./.[!.]* 2>/dev/null; true" });
  await mkdir(path.join(b.ws, "src"), { recursive: true });
  await writeFile(path.join(b.ws, "src/app.py"), 'import os\n\ndef main():\n    print("hi")\n    return 0\n\ndef other():\n    return 1\n');
  await writeFile(path.join(b.ws, "old.txt"), "to be deleted\n");
});

describe("apply_patch", () => {
  it("adds, updates (with @@ context) and deletes files in one patch", async () => {
    const r = await b.run("apply_patch", {
      patchText: patch(
        "*** Add File: docs/new.md",
        "+# Title",
        "+body",
        "*** Update File: src/app.py",
        "@@ def main():",
        '-    print("hi")',
        '+    print("hello")',
        '+    print("world")',
        "@@ def other():",
        "-    return 1",
        "+    return 2",
        "*** Delete File: old.txt",
      ),
    });
    expect(r).toMatchObject({ isError: false });
    expect(r.output).toBe("Success. Updated the following files:\nA docs/new.md\nM src/app.py\nD old.txt");
    expect(await read("docs/new.md")).toBe("# Title\nbody\n");
    expect(await read("src/app.py")).toBe(
      'import os\n\ndef main():\n    print("hello")\n    print("world")\n    return 0\n\ndef other():\n    return 2\n',
    );
    await expect(read("old.txt")).rejects.toThrow(/ENOENT/);
  });

  it("moves a file while updating it", async () => {
    const r = await b.run("apply_patch", {
      patchText: patch("*** Update File: src/app.py", "*** Move to: src/main.py", "@@", " import os", "+import sys"),
    });
    expect(r.output).toBe("Success. Updated the following files:\nM src/main.py (moved from src/app.py)");
    expect((await read("src/main.py")).startsWith("import os\nimport sys\n\ndef main")).toBe(true);
    await expect(read("src/app.py")).rejects.toThrow(/ENOENT/);
  });

  it("tolerates trailing-whitespace differences and keeps CRLF line endings", async () => {
    await writeFile(path.join(b.ws, "crlf.txt"), "a  \r\nb\r\nc\r\n");
    const r = await b.run("apply_patch", { patchText: patch("*** Update File: crlf.txt", "@@", " a", "-b", "+B") });
    expect(r.isError).toBe(false);
    expect(await read("crlf.txt")).toBe("a  \r\nB\r\nc\r\n");
  });

  it("anchors an End of File hunk at the end", async () => {
    await writeFile(path.join(b.ws, "eof.txt"), "x\ny\nx\n");
    await b.run("apply_patch", { patchText: patch("*** Update File: eof.txt", "@@", "-x", "+z", "*** End of File") });
    expect(await read("eof.txt")).toBe("x\ny\nz\n");
  });

  it("leaves every file untouched when one hunk does not match", async () => {
    const before = await snapshot(b.ws);
    const r = await b.run("apply_patch", {
      patchText: patch(
        "*** Add File: created.txt",
        "+should not appear",
        "*** Delete File: old.txt",
        "*** Update File: src/app.py",
        "@@ def main():",
        '-    print("hi")',
        '+    print("changed")',
        "@@",
        "-this line is not in the file",
        "+whatever",
      ),
    });
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(
      /^apply_patch: hunk 2 of src\/app.py does not match the file; expected these lines:\nthis line is not in the file/,
    );
    expect(await snapshot(b.ws)).toEqual(before);
  });

  it("refuses to add an existing file, delete or update a missing one", async () => {
    const before = await snapshot(b.ws);
    expect((await b.run("apply_patch", { patchText: patch("*** Add File: old.txt", "+x") })).output).toBe(
      "apply_patch: cannot add old.txt: it already exists",
    );
    expect((await b.run("apply_patch", { patchText: patch("*** Delete File: nope.txt") })).output).toBe(
      "apply_patch: cannot delete nope.txt: no such file",
    );
    expect((await b.run("apply_patch", { patchText: patch("*** Update File: nope.txt", "@@", "-a", "+b") })).output).toBe(
      "apply_patch: cannot update nope.txt: no such file",
    );
    expect(await snapshot(b.ws)).toEqual(before);
  });

  it("rejects malformed patches with a message saying what is wrong", async () => {
    expect((await b.run("apply_patch", { patchText: "*** Add File: x\n+y\n*** End Patch" })).output).toBe(
      'apply_patch: the patch must start with "*** Begin Patch"',
    );
    expect((await b.run("apply_patch", { patchText: "*** Begin Patch\n*** Add File: x\n+y" })).output).toBe(
      'apply_patch: the patch must end with "*** End Patch"',
    );
    expect((await b.run("apply_patch", { patchText: patch("*** Add File: x", "no plus") })).output).toMatch(/must start with "\+"/);
    expect((await b.run("apply_patch", { patchText: patch("*** Frobnicate File: x") })).output).toMatch(/expected "\*\*\* Add File: "/);
    expect((await b.run("apply_patch", { patchText: patch() })).output).toBe("apply_patch: the patch contains no file operations");
  });

  it("refuses any operation outside the workspace, before writing anything", async () => {
    const before = await snapshot(b.ws);
    for (const p of ["../escape.txt", path.join(b.outside, "abs.txt")]) {
      const r = await b.run("apply_patch", { patchText: patch("*** Add File: inside.txt", "+ok", `*** Add File: ${p}`, "+pwned") });
      expect(r.isError).toBe(true);
      expect(r.output).toMatch(/refused: .*(climbs out of the workspace|is outside the workspace)/);
    }
    const move = await b.run("apply_patch", {
      patchText: patch("*** Update File: old.txt", "*** Move to: ../moved.txt", "@@", "-to be deleted", "+x"),
    });
    expect(move.output).toMatch(/refused: path "\.\.\/moved.txt" climbs out/);
    expect(await snapshot(b.ws)).toEqual(before);
    expect(await snapshot(b.outside)).toEqual({});
  });

  it("accepts a heredoc-wrapped patch", async () => {
    const r = await b.run("apply_patch", { patchText: `<<'EOF'\n${patch("*** Add File: h.txt", "+h")}\nEOF\n` });
    expect(r.isError).toBe(false);
    expect(await read("h.txt")).toBe("h\n");
  });
});
