import { execFileSync } from "node:child_process";
import { mkdir, realpath, symlink } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SkillSource } from "../../../src/sources/skills/skill-source.js";
import type { Logger } from "../../../src/core/types.js";
import { tempDir } from "../../helpers/temp-dir.js";

const skill = (name: string, description = `about ${name}`) => `---\nname: ${name}\ndescription: ${description}\n---\nBody of ${name}.\n`;

/** Builds a SkillSource over `dirs`, recording its warnings. */
async function load(...dirs: string[]) {
  const warnings: Record<string, unknown>[] = [];
  const noop = () => {};
  const logger: Logger = { debug: noop, info: noop, error: noop, warn: (o) => warnings.push(o as Record<string, unknown>) };
  const source = new SkillSource("skills", dirs);
  await source.build({ logger, onToolsChanged: noop });
  return { source, warnings, names: source.skills().map((s) => s.name) };
}

describe("skill discovery", () => {
  it("follows a symlinked skill directory and a symlinked SKILL.md", async () => {
    const outside = await tempDir({ "linked-dir/SKILL.md": skill("via-dir"), "loose.md": skill("via-file") });
    const root = await realpath(await tempDir({ "plain/SKILL.md": skill("plain") }));
    await symlink(path.join(outside, "linked-dir"), path.join(root, "dir-link"));
    await mkdir(path.join(root, "file-link"));
    await symlink(path.join(outside, "loose.md"), path.join(root, "file-link", "SKILL.md"));

    const { source, names } = await load(root);
    expect(names).toEqual(["plain", "via-dir", "via-file"]);
    // Locations keep the path through the link: the skill lives there as far as the catalog is concerned.
    expect(source.skills().find((s) => s.name === "via-dir")?.location).toBe(path.join(root, "dir-link", "SKILL.md"));
    expect(source.skills().find((s) => s.name === "via-file")?.location).toBe(path.join(root, "file-link", "SKILL.md"));
  });

  it("terminates on symlink cycles and loads a skill reached twice only once", async () => {
    const root = await realpath(await tempDir({ "a/SKILL.md": skill("a"), "a/deeper/SKILL.md": skill("deeper") }));
    await symlink(root, path.join(root, "a", "deeper", "back-to-root"));
    await symlink(path.join(root, "a"), path.join(root, "again"));
    await symlink("self", path.join(root, "self")); // a link to itself: ELOOP, treated as a dangling entry

    const { source, names } = await load(root);
    expect(names).toEqual(["a", "deeper"]);
    expect(source.skipped()).toEqual([]);
  });

  it("skips node_modules and .git but not other dot-directories", async () => {
    const root = await tempDir({
      "node_modules/pkg/SKILL.md": skill("from-node-modules"),
      ".git/SKILL.md": skill("from-git"),
      "nested/node_modules/SKILL.md": skill("nested-node-modules"),
      ".claude/skills/real/SKILL.md": skill("dot-dir"),
    });
    expect((await load(root)).names).toEqual(["dot-dir"]);
  });

  it("keeps the first of skills sharing a name in code-unit order, and says why the others are skipped", async () => {
    // Code-unit order decides, not locale order nor readdir's (libuv sorts by UTF-8 bytes, which puts
    // U+FF01 before the surrogate pair of U+1F600; UTF-16 code units put it after).
    const order = ["0", "A", "B", "Z", "_", "a", "b", "é", "\u{1F600}", "\uFF01"];
    const files = Object.fromEntries(
      ["b", "é", "\uFF01", "Z", "_", "A", "\u{1F600}", "a", "0", "B"].map((d) => [`${d}/SKILL.md`, skill("same", `from ${d}`)]),
    );
    const root = await realpath(await tempDir({ ...files, "m/SKILL.md": skill("other") }));
    const { source, warnings } = await load(root);
    const at = (d: string) => path.join(root, d, "SKILL.md");
    expect(source.skills()).toEqual([
      { name: "other", description: "about other", location: at("m") },
      { name: "same", description: "from 0", location: at("0") },
    ]);
    expect(source.skipped()).toEqual(
      order.slice(1).map((d) => ({ reason: "duplicate-name", location: at(d), error: `"same" is already loaded from ${at("0")}` })),
    );
    expect(warnings).toContainEqual({ name: "same", location: at("é"), kept: at("0") });
  });

  it("lets the first configured directory win a duplicate across directories", async () => {
    const first = await realpath(await tempDir({ "z/SKILL.md": skill("dup", "first dir") }));
    const second = await realpath(await tempDir({ "a/SKILL.md": skill("dup", "second dir") }));
    const { source } = await load(first, second);
    expect(source.skills().map((s) => s.description)).toEqual(["first dir"]);
    expect(source.skipped().map((s) => [s.reason, s.location])).toEqual([["duplicate-name", path.join(second, "a", "SKILL.md")]]);
  });

  it("skips unreadable SKILL.md entries with a reason and goes on", async () => {
    // Tests run as root, where chmod 000 does not stop a read; these entries really cannot be read as a file.
    const root = await realpath(await tempDir({ "dir-named/SKILL.md/inner.txt": "x", "ok/SKILL.md": skill("ok") }));
    await mkdir(path.join(root, "dangling"));
    await symlink(path.join(root, "nowhere.md"), path.join(root, "dangling", "SKILL.md"));
    await mkdir(path.join(root, "fifo"));
    execFileSync("mkfifo", [path.join(root, "fifo", "SKILL.md")]); // reading it would block forever

    const { source, names } = await load(root);
    expect(names).toEqual(["ok"]);
    expect(source.skipped()).toEqual([
      { reason: "unreadable", location: path.join(root, "dangling", "SKILL.md"), error: "dangling symlink" },
      { reason: "unreadable", location: path.join(root, "dir-named", "SKILL.md"), error: "is a directory" },
      { reason: "unreadable", location: path.join(root, "fifo", "SKILL.md"), error: "not a regular file" },
    ]);
  });

  it("reports missing names and malformed frontmatter without crashing", async () => {
    const root = await realpath(
      await tempDir({
        "no-fence/SKILL.md": "# No frontmatter at all\n",
        "list/SKILL.md": "---\n- a\n---\n",
        "name-list/SKILL.md": "---\nname: [a, b]\n---\n",
      }),
    );
    const { source } = await load(root);
    expect(source.skipped().map((s) => [path.basename(path.dirname(s.location)), s.reason])).toEqual([
      ["list", "malformed-frontmatter"],
      ["name-list", "missing-name"],
      ["no-fence", "missing-name"],
    ]);
    expect(source.status()).toEqual({ source: "skill", name: "skills", state: "connected", tools: 1 });
  });

  it("reports locations below the resolved root when the configured directory is a symlink", async () => {
    const real = await realpath(await tempDir({ "s/SKILL.md": skill("s") }));
    const holder = await tempDir();
    await symlink(real, path.join(holder, "skills-link"));
    const { source } = await load(path.join(holder, "skills-link"));
    expect(source.skills()[0]?.location).toBe(path.join(real, "s", "SKILL.md"));
  });

  it("fails the source only when no directory can be read, and names the unreadable ones", async () => {
    const ok = await tempDir({ "s/SKILL.md": skill("s") });
    const missing = path.join(ok, "gone");
    const both = await load(missing, ok);
    expect(both.names).toEqual(["s"]);
    expect(both.source.status()).toEqual({
      source: "skill",
      name: "skills",
      state: "connected",
      tools: 1,
      error: `cannot read skills directory: ${missing}`,
    });

    const none = await load(missing);
    expect(none.source.status()).toMatchObject({ state: "failed", tools: 0 });
    expect(none.source.tools()).toEqual([]);
  });
});
