import { describe, expect, it } from "vitest";
import { excerptsOf, groupScript, marker, outputsOf, snippetsOf } from "../helpers/doc-snippets.js";

const PAGE = [
  "Intro",
  "```sh",
  "echo not a doctest",
  "```",
  "- a list item:",
  "",
  "  ```sh doctest=g once",
  "  npm install x@1",
  "  ```",
  "",
  "  ```js doctest=g file=a.mjs",
  '  console.log("hi from http://127.0.0.1:8080");',
  "  ```",
  "```sh doctest=g",
  "node a.mjs",
  "```",
  "```text doctest=g output",
  "hi from http://127.0.0.1:8080",
  "```",
].join("\n");

describe("doc snippets: extraction", () => {
  it("reads the doctest blocks only, with their attributes, indentation stripped", () => {
    const s = snippetsOf(PAGE, "page.md");
    expect(s.map((x) => [x.where, x.lang, x.group, x.file, x.once, x.output])).toEqual([
      ["page.md:7", "sh", "g", undefined, true, false],
      ["page.md:11", "js", "g", "a.mjs", false, false],
      ["page.md:14", "sh", "g", undefined, false, false],
      ["page.md:17", "text", "g", undefined, false, true],
    ]);
    expect(s[1]?.text).toBe('console.log("hi from http://127.0.0.1:8080");\n');
  });

  it("refuses an unclosed block", () => {
    expect(() => snippetsOf("```sh doctest=g\necho", "p.md")).toThrow(/p.md:1: unclosed/);
  });

  it("builds the first pass with the installs, later ones without, and maps the expected output to its block", () => {
    const s = snippetsOf(PAGE, "page.md");
    const first = groupScript(s, { first: true, url: "http://127.0.0.1:4321" });
    expect(first.script).toContain("npm install x@1");
    expect(first.script).toContain("cat > 'a.mjs' <<'DOCTEST_EOF'\nconsole.log(\"hi from http://127.0.0.1:4321\");\nDOCTEST_EOF");
    expect(first.blocks).toEqual(
      new Map([
        [1, "page.md:7"],
        [2, "page.md:14"],
      ]),
    );
    expect(first.expected).toEqual(new Map([[2, { text: "hi from http://127.0.0.1:4321\n", where: "page.md:17" }]]));
    const later = groupScript(s, { first: false, url: "http://127.0.0.1:4321" });
    expect(later.script).not.toContain("npm install");
    expect([...later.expected.keys()]).toEqual([1]);
  });

  it("refuses a block it cannot run and an output with nothing before it", () => {
    expect(() => groupScript(snippetsOf("```py doctest=g\nprint(1)\n```", "p.md"), { first: true, url: "" })).toThrow(/needs file=NAME/);
    expect(() => groupScript(snippetsOf("```text doctest=g output\n1\n```", "p.md"), { first: true, url: "" })).toThrow(/must follow/);
  });

  it("splits what the script printed by block", () => {
    expect(outputsOf(`${marker(1)}\na\n${marker(2)}\nb\nc\n`)).toEqual(
      new Map([
        [1, "a\n"],
        [2, "b\nc\n"],
      ]),
    );
  });

  it("reads excerpt blocks apart from doctest ones", () => {
    expect(excerptsOf("```js excerpt=a/b.mjs\nconst x = 1;\n```\n```sh doctest=g\nls\n```", "p.md")).toEqual([
      { where: "p.md:1", path: "a/b.mjs", text: "const x = 1;\n" },
    ]);
  });
});
