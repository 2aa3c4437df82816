import { describe, expect, it } from "vitest";
import { parseSkillFile } from "../../../src/sources/skills/frontmatter.js";

describe("parseSkillFile", () => {
  it("resolves block scalars, quoting and folding with a real YAML parser, then trims", () => {
    const text = [
      "---",
      "name: '  quoted  '",
      "description: >-",
      "  folded",
      "  lines",
      "extra: |",
      "  ignored",
      "---",
      "",
      "  body text  ",
      "",
    ].join("\n");
    expect(parseSkillFile(text)).toEqual({ name: "quoted", description: "folded lines", body: "body text" });
  });

  it("turns number and boolean scalars into strings; null, lists and maps count as absent", () => {
    expect(parseSkillFile("---\nname: 42\ndescription: true\n---\nb")).toEqual({ name: "42", description: "true", body: "b" });
    expect(parseSkillFile("---\nname: ~\n---\nb")).toEqual({ body: "b" });
    expect(parseSkillFile("---\nname: [a, b]\ndescription: { k: v }\n---\nb")).toEqual({ body: "b" });
    expect(parseSkillFile("---\nname: '   '\n---\nb")).toEqual({ body: "b" });
  });

  it("reads CRLF files and a byte-order mark like plain LF files", () => {
    expect(parseSkillFile("\uFEFF---\r\nname: win\r\ndescription: |\r\n  two\r\n  lines\r\n---\r\nline 1\r\nline 2\r\n")).toEqual({
      name: "win",
      description: "two\nlines",
      body: "line 1\nline 2",
    });
  });

  it("treats a file without a fence as all body, and an empty frontmatter as no fields", () => {
    expect(parseSkillFile("# Just markdown\n")).toEqual({ body: "# Just markdown" });
    expect(parseSkillFile("---\n---\nbody")).toEqual({ body: "body" });
  });

  it("reports malformed frontmatter with the line in the file instead of throwing", () => {
    expect(parseSkillFile("---\nname: x\ndescription: [unclosed\n---\n")).toEqual({
      error: expect.stringMatching(/^invalid YAML at line 3: /),
    });
    expect(parseSkillFile("---\nname: a\nname: b\n---\n")).toEqual({ error: expect.stringContaining("unique") });
    expect(parseSkillFile("---\n- a list\n---\n")).toEqual({ error: "frontmatter is not a mapping of keys to values" });
    expect(parseSkillFile("---\nname: never closed\n")).toEqual({ error: "frontmatter opened with --- is never closed" });
  });

  it("refuses an alias bomb instead of expanding it", () => {
    const lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    let prev = "a";
    for (const k of "bcdefgh") {
      lines.push(`${k}: &${k} [${Array(10).fill(`*${prev}`).join(", ")}]`);
      prev = k;
    }
    expect(parseSkillFile(`---\n${lines.join("\n")}\nname: bomb\n---\n`)).toEqual({ error: expect.any(String) });
  });
});
