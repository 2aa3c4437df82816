import { realpath } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { tempDir } from "../helpers/temp-dir.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("skills over REST from a config file", () => {
  it("resolves `skills:` against the config file, serves the catalog, and logs what it skipped", async () => {
    const dir = await realpath(
      await tempDir({
        "toolnexus.yaml": "skills:\n  - ./team-skills\n",
        "team-skills/review/SKILL.md": "---\nname: review\ndescription: Review a pull request.\n---\nRead the diff first.\n",
        "team-skills/review-copy/SKILL.md": "---\nname: review\ndescription: A second review.\n---\nIgnored.\n",
        "team-skills/broken/SKILL.md": "---\nname: [\n---\n",
      }),
    );
    server = await startServer({ config: path.join(dir, "toolnexus.yaml") });
    const at = (d: string) => path.join(dir, "team-skills", d, "SKILL.md");

    const skills = await (await fetch(`${server.url}/skills`)).json();
    expect(skills).toEqual({
      skills: [{ name: "review", description: "Review a pull request.", location: at("review") }],
      skipped: [
        { reason: "malformed-frontmatter", location: at("broken"), error: expect.stringMatching(/^invalid YAML at line 2: /) },
        { reason: "duplicate-name", location: at("review-copy"), error: `"review" is already loaded from ${at("review")}` },
      ],
    });

    const prompt = await fetch(`${server.url}/skills/prompt`);
    expect(prompt.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await prompt.text()).toMatch(/\n## Available Skills\n- \*\*review\*\*: Review a pull request\.$/);

    const res = await fetch(`${server.url}/tools/skill/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ arguments: { name: "review" } }),
    });
    expect(res.status).toBe(200);
    const result = (await res.json()) as { output: string; isError: boolean };
    expect(result.isError).toBe(false);
    expect(result.output).toContain("\n\nRead the diff first.\n\nBase directory for this skill: file://");

    const bad = await fetch(`${server.url}/tools/skill/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ arguments: { name: "review", path: "x" } }),
    });
    expect(bad.status).toBe(422);

    expect(server.logs).toContainEqual(
      expect.objectContaining({ msg: "duplicate skill name; the first one wins", name: "review", kept: at("review") }),
    );
  });
});
