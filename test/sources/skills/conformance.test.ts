import { readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolkit } from "../../../src/create-toolkit.js";
import type { Toolkit } from "../../../src/core/toolkit.js";
import { startServer, type TestServer } from "../../helpers/server.js";

// The shared conformance fixture is read in place (CI copies it read-only; nothing here writes).
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const conformance = path.resolve(repoRoot, "../shared/conformance/skills");
const fixture = path.join(conformance, "fixture");
const ROOT = realpathSync(fixture);

interface Expected {
  tool: { name: string; description: string; inputSchema: Record<string, unknown> };
  skillsPrompt: string;
  calls: { arguments: Record<string, unknown>; output: string; isError: boolean }[];
  loaded: string[];
  skipped: { reason: string; location: string }[];
}

/** expected.json with {{ROOT}} filled in: percent-encoded inside file URLs, raw elsewhere. */
function withRoot(value: unknown): unknown {
  if (typeof value === "string") return value.replaceAll("file://{{ROOT}}", pathToFileURL(ROOT).href).replaceAll("{{ROOT}}", ROOT);
  if (Array.isArray(value)) return value.map(withRoot);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withRoot(v)]));
  return value;
}
const expected = withRoot(JSON.parse(readFileSync(path.join(conformance, "expected.json"), "utf8"))) as Expected;

const reasonAndLocation = (s: { reason: string; location: string }) => ({ reason: s.reason, location: s.location });

describe("skills conformance fixture, through the toolkit", () => {
  let tk: Toolkit;
  beforeAll(async () => {
    tk = await createToolkit({ skills: [fixture] });
  });
  afterAll(() => tk.close());

  it("exposes exactly one `skill` tool with the expected description and schema", () => {
    expect(tk.tools().map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, source: t.source }))).toEqual([
      { ...expected.tool, source: "skill" },
    ]);
  });

  it("renders the prompt catalog byte for byte", () => {
    expect(tk.skillsPrompt()).toBe(expected.skillsPrompt);
  });

  it.each(expected.calls.map((c) => [c.arguments.name, c] as const))("skill(%s) returns the expected output", async (_name, call) => {
    expect(await tk.execute("skill", call.arguments)).toEqual({ output: call.output, isError: call.isError });
  });

  it("lists the loaded skills and the skipped files with their reasons", () => {
    expect(tk.skills().map((s) => s.name)).toEqual(expected.loaded);
    expect(tk.skills().find((s) => s.name === "hello-world")).toEqual({
      name: "hello-world",
      description: "A tiny example skill. Use when you want to see how skill loading (progressive disclosure) works end to end.",
      location: path.join(ROOT, "hello-world", "SKILL.md"),
    });
    // expected.json pins reason and location; the extra `error` detail is checked on its own.
    expect(tk.skippedSkills().map(reasonAndLocation)).toEqual(expected.skipped);
    for (const s of tk.skippedSkills()) expect(s.error).toEqual(expect.any(String));
  });

  it("rejects an argument the schema does not declare", async () => {
    await expect(tk.execute("skill", { name: "hello-world", extra: 1 })).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
  });
});

describe("skills conformance fixture, over REST", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ config: { skills: [fixture] } });
  });
  afterAll(() => server.close());

  it("GET /tools lists the skill tool with its schema", async () => {
    const res = await fetch(`${server.url}/tools`);
    const body = (await res.json()) as { tools: unknown[] };
    expect(body.tools).toEqual([{ ...expected.tool, source: "skill" }]);
  });

  it("GET /skills lists loaded and skipped skills", async () => {
    const res = await fetch(`${server.url}/skills`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      skills: { name: string; description: string; location: string }[];
      skipped: { reason: string; location: string }[];
    };
    expect(body.skills.map((s) => s.name)).toEqual(expected.loaded);
    expect(body.skills.find((s) => s.name === "no-description")).toEqual({
      name: "no-description",
      description: "",
      location: path.join(ROOT, "internal", "no-description", "SKILL.md"),
    });
    expect(body.skipped.map(reasonAndLocation)).toEqual(expected.skipped);
  });

  it("GET /skills/prompt returns the catalog as text/plain", async () => {
    const res = await fetch(`${server.url}/skills/prompt`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await res.text()).toBe(expected.skillsPrompt);
  });

  it.each(expected.calls.map((c) => [c.arguments.name, c] as const))("POST /tools/skill/execute (%s)", async (_name, call) => {
    const res = await fetch(`${server.url}/tools/skill/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ arguments: call.arguments }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ output: call.output, isError: call.isError });
  });

  it("shows the skills source connected in /status", async () => {
    const res = await fetch(`${server.url}/status`);
    const body = (await res.json()) as { sources: unknown[] };
    expect(body.sources).toContainEqual({ source: "skill", name: "skills", state: "connected", tools: 1 });
  });
});
