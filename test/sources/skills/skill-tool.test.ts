import { mkdir, realpath, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { createToolkit } from "../../../src/create-toolkit.js";
import { NO_SKILLS_PROMPT } from "../../../src/core/toolkit.js";
import { sampleFiles } from "../../../src/sources/skills/sample-files.js";
import { tempDir } from "../../helpers/temp-dir.js";

const skill = (name: string, description?: string) =>
  `---\nname: ${name}\n${description === undefined ? "" : `description: ${description}\n`}---\nBody of ${name}.\n`;

describe("sibling file sample", () => {
  it("lists up to 10 files in sorted depth-first order, never a SKILL.md", async () => {
    const files: Record<string, string> = { "SKILL.md": skill("big"), "sub/SKILL.md": skill("nested") };
    for (const n of ["k", "c", "a", "j", "e", "g", "b", "i", "d", "h", "f"]) files[`${n}.txt`] = n;
    files["B/deep.txt"] = "upper-case directories sort before lower-case files";
    const dir = await realpath(await tempDir(files));
    expect((await sampleFiles(dir)).map((f) => path.relative(dir, f))).toEqual([
      "B/deep.txt",
      "a.txt",
      "b.txt",
      "c.txt",
      "d.txt",
      "e.txt",
      "f.txt",
      "g.txt",
      "h.txt",
      "i.txt",
    ]);
  });

  it("follows symlinked files and directories, survives a cycle, skips node_modules, .git and dangling links", async () => {
    const outside = await tempDir({ "ref/guide.md": "g", "tool.sh": "t" });
    const dir = await realpath(await tempDir({ "SKILL.md": skill("s"), "node_modules/x.js": "", ".git/HEAD": "", ".env.example": "" }));
    await symlink(path.join(outside, "ref"), path.join(dir, "reference"));
    await symlink(path.join(outside, "tool.sh"), path.join(dir, "run.sh"));
    await symlink(dir, path.join(dir, "loop"));
    await symlink(path.join(dir, "nothing"), path.join(dir, "dangling"));
    expect(await sampleFiles(dir)).toEqual([".env.example", "reference/guide.md", "run.sh"].map((f) => path.join(dir, f)));
  });

  it("stops when the call is cancelled", async () => {
    const dir = await tempDir({ "a/b.txt": "" });
    await expect(sampleFiles(dir, AbortSignal.abort())).rejects.toThrow();
  });
});

describe("the skill tool", () => {
  it("samples files at call time and percent-encodes the base directory URL", async () => {
    const root = await realpath(await tempDir({ "with space/#odd%/SKILL.md": skill("odd", "Odd path.") }));
    const tk = await createToolkit({ skills: [root] });
    const dir = path.join(root, "with space", "#odd%");
    await mkdir(path.join(dir, "scripts"));
    await writeFile(path.join(dir, "scripts", "run.sh"), "echo hi\n");

    const { output, isError } = await tk.execute("skill", { name: "odd" });
    expect(isError).toBe(false);
    expect(pathToFileURL(dir).href).toMatch(/with%20space\/%23odd%25$/);
    expect(output).toBe(
      [
        '<skill_content name="odd">',
        "# Skill: odd",
        "",
        "Body of odd.",
        "",
        `Base directory for this skill: ${pathToFileURL(dir).href}`,
        "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.",
        "Note: file list is sampled.",
        "",
        "<skill_files>",
        `<file>${path.join(dir, "scripts", "run.sh")}</file>`,
        "</skill_files>",
        "</skill_content>",
      ].join("\n"),
    );
    await tk.close();
  });

  it("with no skills: says none are available, in the tool and in the prompt", async () => {
    const root = await tempDir({ "README.md": "nothing here" });
    const tk = await createToolkit({ skills: [root] });
    expect(tk.tools().map((t) => t.name)).toEqual(["skill"]);
    expect(tk.skillsPrompt()).toBe(NO_SKILLS_PROMPT);
    await expect(tk.execute("skill", { name: "x" })).resolves.toEqual({
      output: 'Skill "x" not found. Available skills: none',
      isError: true,
    });
    await tk.close();
  });

  it("leaves undescribed skills out of the prompt but loadable", async () => {
    const root = await tempDir({ "quiet/SKILL.md": skill("quiet") });
    const tk = await createToolkit({ skills: [root] });
    expect(tk.skillsPrompt()).toBe(NO_SKILLS_PROMPT);
    expect((await tk.execute("skill", { name: "quiet" })).output).toContain("Body of quiet.");
    await tk.close();
  });

  it("is absent when no skills directory is configured", async () => {
    const tk = await createToolkit({});
    expect(tk.get("skill")).toBeUndefined();
    expect(tk.skills()).toEqual([]);
    expect(tk.skillsPrompt()).toBe(NO_SKILLS_PROMPT);
    await tk.close();
  });
});
