import { chmod, mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeBuiltins, type Builtins } from "./helpers.js";

let b: Builtins;
beforeAll(async () => {
  b = await makeBuiltins({ limits: { outputLimitBytes: 64 * 1024, maxFileBytes: 2048, maxScanFiles: 1000 } });
});
afterAll(() => b.close());

describe("read", () => {
  it("reads a text file whole, or a window of lines", async () => {
    await writeFile(path.join(b.ws, "lines.txt"), "one\ntwo\nthree\nfour\n");
    expect(await b.run("read", { path: "lines.txt" })).toMatchObject({ isError: false, output: "one\ntwo\nthree\nfour\n" });
    expect((await b.run("read", { path: "lines.txt", offset: 2, limit: 2 })).output).toBe("two\nthree");
    expect((await b.run("read", { path: "lines.txt", offset: 3 })).output).toBe("three\nfour\n");
    expect((await b.run("read", { path: "lines.txt", limit: 1 })).output).toBe("one");
  });

  it("a missing file, a directory, an offset past the end and a binary file are errors", async () => {
    expect(await b.run("read", { path: "missing.txt" })).toMatchObject({
      isError: true,
      output: "read: missing.txt: no such file or directory",
    });
    await mkdir(path.join(b.ws, "adir"), { recursive: true });
    expect((await b.run("read", { path: "adir" })).output).toMatch(/"adir" is a directory/);
    await writeFile(path.join(b.ws, "short.txt"), "a\nb");
    expect((await b.run("read", { path: "short.txt", offset: 9 })).output).toBe('read: offset 9 is past the end of "short.txt" (2 lines)');
    await writeFile(path.join(b.ws, "bin.dat"), Buffer.from([1, 2, 0, 3]));
    expect((await b.run("read", { path: "bin.dat" })).output).toBe('read: "bin.dat" is a binary file');
    await writeFile(path.join(b.ws, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect((await b.run("read", { path: "latin1.txt" })).output).toBe('read: "latin1.txt" is not a UTF-8 text file');
  });

  it("refuses a file over the size cap unless windowed, and streams the window", async () => {
    const lines = Array.from({ length: 500 }, (_, i) => `line ${i + 1}`);
    await writeFile(path.join(b.ws, "big.txt"), `${lines.join("\n")}\n`);
    const whole = await b.run("read", { path: "big.txt" });
    expect(whole.isError).toBe(true);
    expect(whole.output).toMatch(/"big.txt" is \d+ bytes, over the read limit of 2048 bytes; pass offset and limit/);
    expect((await b.run("read", { path: "big.txt", offset: 250, limit: 3 })).output).toBe("line 250\nline 251\nline 252");
    expect((await b.run("read", { path: "big.txt", offset: 500, limit: 5 })).output).toBe("line 500\n");
    // A window larger than the cap is cut at the cap, and says where to continue.
    const cut = await b.run("read", { path: "big.txt", offset: 1 });
    expect(cut.isError).toBe(false);
    expect(Buffer.byteLength(cut.output)).toBeLessThan(2048 + 100);
    expect(cut.output).toMatch(/\[window cut at the 2048-byte limit; continue with offset \d+\]$/);
    expect(cut.metadata).toMatchObject({ truncated: true });
  });
});

describe("write", () => {
  it("creates parent directories and reports the byte count", async () => {
    const r = await b.run("write", { path: "deep/er/new.txt", content: "héllo" });
    expect(r).toMatchObject({ isError: false, output: "Wrote 6 bytes to deep/er/new.txt" });
    expect(await readFile(path.join(b.ws, "deep/er/new.txt"), "utf8")).toBe("héllo");
    await b.run("write", { path: "deep/er/new.txt", content: "over" });
    expect(await readFile(path.join(b.ws, "deep/er/new.txt"), "utf8")).toBe("over");
  });

  it("writing over a directory is an error", async () => {
    await mkdir(path.join(b.ws, "isdir"), { recursive: true });
    expect(await b.run("write", { path: "isdir", content: "x" })).toMatchObject({ isError: true, output: "write: isdir: is a directory" });
  });

  it("writes through a symbolic link that stays inside", async () => {
    await writeFile(path.join(b.ws, "target.txt"), "old");
    await symlink("target.txt", path.join(b.ws, "alias.txt"));
    expect((await b.run("write", { path: "alias.txt", content: "new" })).output).toBe("Wrote 3 bytes to target.txt");
    expect(await readFile(path.join(b.ws, "target.txt"), "utf8")).toBe("new");
  });
});

describe("edit", () => {
  it("replaces one unique occurrence, literally", async () => {
    await writeFile(path.join(b.ws, "e.txt"), "alpha beta gamma\n");
    const r = await b.run("edit", { path: "e.txt", oldString: "beta", newString: "$& $1 B" });
    expect(r).toMatchObject({ isError: false, output: "Edited e.txt: 1 replacement" });
    expect(await readFile(path.join(b.ws, "e.txt"), "utf8")).toBe("alpha $& $1 B gamma\n");
  });

  it("refuses a non-unique oldString unless replaceAll", async () => {
    await writeFile(path.join(b.ws, "dup.txt"), "x x x");
    const r = await b.run("edit", { path: "dup.txt", oldString: "x", newString: "y" });
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(/oldString occurs 3 times in "dup.txt"/);
    expect(await readFile(path.join(b.ws, "dup.txt"), "utf8")).toBe("x x x");
    expect((await b.run("edit", { path: "dup.txt", oldString: "x", newString: "y", replaceAll: true })).output).toBe(
      "Edited dup.txt: 3 replacements",
    );
    expect(await readFile(path.join(b.ws, "dup.txt"), "utf8")).toBe("y y y");
  });

  it("absent oldString, empty oldString, identical strings and missing file are errors", async () => {
    await writeFile(path.join(b.ws, "f.txt"), "content");
    expect((await b.run("edit", { path: "f.txt", oldString: "nope", newString: "y" })).output).toBe('edit: oldString not found in "f.txt"');
    expect((await b.run("edit", { path: "f.txt", oldString: "", newString: "y" })).isError).toBe(true);
    expect((await b.run("edit", { path: "f.txt", oldString: "content", newString: "content" })).isError).toBe(true);
    expect((await b.run("edit", { path: "gone.txt", oldString: "a", newString: "b" })).output).toBe(
      "edit: gone.txt: no such file or directory",
    );
  });

  it("keeps the file's mode", async () => {
    const p = path.join(b.ws, "script.sh");
    await writeFile(p, "echo a\n");
    await chmod(p, 0o755);
    await b.run("edit", { path: "script.sh", oldString: "a", newString: "b" });
    expect((await stat(p)).mode & 0o777).toBe(0o755);
  });
});
