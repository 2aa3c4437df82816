import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeBuiltins, type Builtins } from "./helpers.js";

let b: Builtins;
beforeAll(async () => {
  b = await makeBuiltins({ limits: { outputLimitBytes: 64 * 1024, maxFileBytes: 4096, maxScanFiles: 1000 } });
  const files: Record<string, string> = {
    "a.ts": "const a = 1;\nexport function hello() {}\n",
    "src/b.ts": "// hello\nlet b = 2;\n",
    "src/deep/c.md": "Hello world\nhello again\n",
    "src/.hidden.ts": "hello hidden\n",
    "node_modules/pkg/index.ts": "hello from deps\n",
    "big.txt": `hello\n${"x".repeat(5000)}\n`,
  };
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(b.ws, rel)), { recursive: true });
    await writeFile(path.join(b.ws, rel), text);
  }
  await writeFile(path.join(b.ws, "bin.dat"), Buffer.concat([Buffer.from("hello"), Buffer.from([0, 1, 2])]));
  await writeFile(path.join(b.outside, "leak.ts"), "hello from outside\n");
  await symlink(b.outside, path.join(b.ws, "out-link"));
  await symlink(path.join(b.outside, "leak.ts"), path.join(b.ws, "leak-link.ts"));
});
afterAll(() => b.close());

describe("glob", () => {
  it("lists matching files as sorted workspace-relative paths; a pattern without / matches at any depth", async () => {
    expect((await b.run("glob", { pattern: "*.ts" })).output).toBe("a.ts\nsrc/.hidden.ts\nsrc/b.ts");
    expect((await b.run("glob", { pattern: "src/**/*.md" })).output).toBe("src/deep/c.md");
    expect((await b.run("glob", { pattern: "*.md", path: "src" })).output).toBe("src/deep/c.md");
    expect((await b.run("glob", { pattern: "*.nothing" })).output).toBe("");
  });

  it("caps at limit and says how many more there are", async () => {
    const r = await b.run("glob", { pattern: "*.ts", limit: 2 });
    expect(r.output).toBe("a.ts\nsrc/.hidden.ts\n[1 more matches not shown; the limit is 2]");
    expect(r.metadata).toMatchObject({ count: 2, total: 3 });
  });

  it("never follows or lists symbolic links out of the workspace", async () => {
    const r = await b.run("glob", { pattern: "**/*" });
    expect(r.output).not.toMatch(/leak/);
  });

  it("refuses patterns that could leave the directory", async () => {
    expect((await b.run("glob", { pattern: "../outside/*" })).output).toMatch(/refused: pattern "\.\.\/outside\/\*" contains "\.\."/);
    expect((await b.run("glob", { pattern: "/etc/*" })).output).toMatch(/refused: pattern "\/etc\/\*" is absolute/);
    expect((await b.run("glob", { pattern: "{..,src}/*" })).isError).toBe(true);
    expect((await b.run("glob", { pattern: "*", path: "../" })).output).toMatch(/climbs out of the workspace/);
  });

  it("stops at the scan cap and says so", async () => {
    const small = await makeBuiltins({ limits: { outputLimitBytes: 65536, maxFileBytes: 4096, maxScanFiles: 5 } });
    for (let i = 0; i < 4; i++) await mkdir(path.join(small.ws, `d${i}`, "e"), { recursive: true });
    for (let i = 0; i < 4; i++) for (let j = 0; j < 3; j++) await writeFile(path.join(small.ws, `d${i}`, "e", `f${j}.txt`), "x");
    const r = await small.run("glob", { pattern: "*.txt" });
    expect(r.output).toMatch(/\[search stopped after scanning 5 entries; narrow the path or pattern\]/);
    expect(r.metadata).toMatchObject({ scanCut: true });
    await small.close();
  });
});

describe("grep", () => {
  it("outputs file:line:text sorted by file then line, skipping node_modules, binary and big files", async () => {
    const r = await b.run("grep", { pattern: "hello" });
    expect(r.isError).toBe(false);
    expect(r.output).toBe(
      [
        "a.ts:2:export function hello() {}",
        "src/.hidden.ts:1:hello hidden",
        "src/b.ts:1:// hello",
        "src/deep/c.md:2:hello again",
        "[1 file(s) over 4096 bytes skipped]",
      ].join("\n"),
    );
    expect(r.metadata).toMatchObject({ count: 4, skippedLarge: 1, skippedBinary: 1 });
  });

  it("filters by include, searches below path, and caps at limit", async () => {
    expect((await b.run("grep", { pattern: "[Hh]ello", include: "*.md" })).output).toBe(
      "src/deep/c.md:1:Hello world\nsrc/deep/c.md:2:hello again",
    );
    expect((await b.run("grep", { pattern: "hello", path: "src/deep" })).output).toBe("src/deep/c.md:2:hello again");
    expect((await b.run("grep", { pattern: "hello", path: "src/b.ts" })).output).toBe("src/b.ts:1:// hello");
    const capped = await b.run("grep", { pattern: "hello", limit: 1 });
    expect(capped.output.split("\n")[0]).toBe("a.ts:2:export function hello() {}");
    expect(capped.output).toMatch(/\[more matches not shown; the limit is 1\]/);
  });

  it("no match is an empty, successful output; an invalid regex is an error", async () => {
    expect(await b.run("grep", { pattern: "zzz-no-match", path: "src" })).toMatchObject({ isError: false, output: "" });
    expect((await b.run("grep", { pattern: "(" })).output).toMatch(/^grep: invalid regular expression/);
  });

  it("never reads through symbolic links out of the workspace", async () => {
    const r = await b.run("grep", { pattern: "outside" });
    expect(r.output).toBe("[1 file(s) over 4096 bytes skipped]");
    expect((await b.run("grep", { pattern: "hello", path: "out-link" })).output).toMatch(/symbolic link to outside/);
    expect((await b.run("grep", { pattern: "hello", path: "leak-link.ts" })).output).toMatch(/symbolic link to outside/);
    expect((await b.run("grep", { pattern: "hello", include: "../outside/*" })).output).toMatch(/refused: include/);
  });

  it("a catastrophic regex is stopped by the call's signal without blocking the event loop", async () => {
    await writeFile(path.join(b.ws, "redos.txt"), `${"a".repeat(40)}b\n`);
    const ac = new AbortController();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    setTimeout(() => ac.abort(new Error("deadline")), 300);
    await expect(b.run("grep", { pattern: "^(a+)+$", path: "redos.txt" }, { signal: ac.signal })).rejects.toThrow("deadline");
    clearInterval(ticker);
    expect(ticks).toBeGreaterThan(5);
  });
});
