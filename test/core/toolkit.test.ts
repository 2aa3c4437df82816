import { describe, expect, it } from "vitest";
import { ToolnexusError } from "../../src/core/errors.js";
import { NO_SKILLS_PROMPT, Toolkit } from "../../src/core/toolkit.js";
import type { Logger } from "../../src/core/types.js";
import { StaticSource, tool } from "../helpers/static-source.js";

function recordingLogger() {
  const warnings: unknown[] = [];
  const noop = () => {};
  const logger: Logger = { debug: noop, info: noop, error: noop, warn: (o) => warnings.push(o) };
  return { logger, warnings };
}

describe("Toolkit assembly", () => {
  it("orders MCP → skill → builtin → http → a2a → native, whatever the source order", async () => {
    const tk = await Toolkit.create({
      sources: [
        new StaticSource("a2a", "peer", [tool("ask", "a2a")]),
        new StaticSource("http", "api", [tool("get", "http")]),
        new StaticSource("builtin", "builtins", [tool("read", "builtin")]),
        new StaticSource("skill", "skills", [tool("skill", "skill")]),
        new StaticSource("mcp", "fs", [tool("fs_list", "mcp")]),
      ],
      tools: [tool("mine", "native")],
    });
    expect(tk.tools().map((t) => t.name)).toEqual(["fs_list", "skill", "read", "get", "ask", "mine"]);
  });

  it("drops a builtin shadowed by a native tool, even though builtins come first", async () => {
    const tk = await Toolkit.create({
      sources: [new StaticSource("builtin", "builtins", [tool("bash", "builtin"), tool("read", "builtin")])],
      tools: [tool("bash", "native")],
    });
    expect(tk.tools().map((t) => `${t.name}@${t.source}`)).toEqual(["read@builtin", "bash@native"]);
    await expect(tk.execute("bash", {})).resolves.toMatchObject({ output: "bash@native" });
  });

  it("refuses a name an earlier tool took, with one warning naming both sources", async () => {
    const { logger, warnings } = recordingLogger();
    const tk = await Toolkit.create({
      sources: [
        new StaticSource("skill", "skills", [tool("x", "skill")]),
        new StaticSource("mcp", "a", [tool("x", "mcp")]),
        new StaticSource("mcp", "b", [tool("x", "mcp"), tool("y", "mcp")]),
      ],
      logger,
    });
    expect(tk.tools().map((t) => `${t.name}@${t.source}`)).toEqual(["x@mcp", "y@mcp"]);
    expect(warnings).toEqual([
      { tool: "x", kept: "mcp/a", dropped: "mcp/b" },
      { tool: "x", kept: "mcp/a", dropped: "skill/skills" },
    ]);
  });

  it("applies disableTools after dedupe, so a disabled winner does not let the loser through", async () => {
    const tk = await Toolkit.create({
      sources: [new StaticSource("mcp", "a", [tool("x", "mcp"), tool("keep", "mcp")]), new StaticSource("http", "h", [tool("x", "http")])],
      disableTools: ["x"],
    });
    expect(tk.tools().map((t) => t.name)).toEqual(["keep"]);
    expect(tk.get("x")).toBeUndefined();
  });

  it("warns once about disableTools names that match no tool", async () => {
    const { logger, warnings } = recordingLogger();
    const tk = await Toolkit.create({
      sources: [new StaticSource("mcp", "a", [tool("x", "mcp"), tool("keep", "mcp")])],
      disableTools: ["x", "kep", "kep"],
      logger,
    });
    expect(tk.tools().map((t) => t.name)).toEqual(["keep"]);
    expect(warnings).toEqual([{ disableTools: ["kep"] }]);
  });

  it("isolates a failing source: it reports failed, the others load", async () => {
    const tk = await Toolkit.create({
      sources: [
        new StaticSource("mcp", "broken", [tool("b", "mcp")], "record"),
        new StaticSource("mcp", "throws", [tool("t", "mcp")], "throw"),
        new StaticSource("http", "ok", [tool("fine", "http")]),
      ],
    });
    expect(tk.tools().map((t) => t.name)).toEqual(["fine"]);
    expect(tk.status()).toEqual([
      { source: "mcp", name: "broken", state: "failed", tools: 0, error: "could not start" },
      { source: "mcp", name: "throws", state: "failed", tools: 0, error: "exploded" },
      { source: "http", name: "ok", state: "connected", tools: 1 },
    ]);
  });

  it("reassembles and bumps the version when a source says its tools changed", async () => {
    const src = new StaticSource("mcp", "m", [tool("one", "mcp")]);
    const tk = await Toolkit.create({ sources: [src] });
    const before = tk.version;
    let notified = 0;
    tk.onChange(() => notified++);
    src.list = [tool("one", "mcp"), tool("two", "mcp")];
    src.notify?.();
    expect(tk.tools().map((t) => t.name)).toEqual(["one", "two"]);
    expect(tk.version).toBeGreaterThan(before);
    expect(notified).toBe(1);
  });

  it("closes every source once", async () => {
    const a = new StaticSource("mcp", "a", []);
    const b = new StaticSource("http", "b", []);
    const tk = await Toolkit.create({ sources: [a, b] });
    await tk.close();
    await tk.close();
    expect([a.closed, b.closed]).toEqual([true, true]);
  });

  it("answers the no-skills prompt and empty skill lists without a skill source", async () => {
    const tk = await Toolkit.create({});
    expect(tk.skillsPrompt()).toBe(NO_SKILLS_PROMPT);
    expect(tk.skills()).toEqual([]);
  });
});

describe("Toolkit reuse on reload", () => {
  const make = (name: string, fingerprint: string, tools = [tool(name, "mcp")]) =>
    Object.assign(new StaticSource("mcp", name, tools), { fingerprint });

  it("takes over running sources with the same kind, name and fingerprint; rebuilds the others", async () => {
    const same = make("same", "a");
    const changed = make("changed", "v1");
    const old = await Toolkit.create({ sources: [same, changed] });

    const sameAgain = make("same", "a");
    const changedAgain = make("changed", "v2");
    const next = await Toolkit.create({ sources: [sameAgain, changedAgain], reuse: old });
    expect(sameAgain.builds).toBe(0);
    expect(changedAgain.builds).toBe(1);
    expect(next.version).not.toBe(old.version);

    await old.close();
    expect(same.closed).toBe(false);
    expect(changed.closed).toBe(true);

    // The kept source now reports tool changes to the new toolkit.
    same.list = [tool("same", "mcp"), tool("same_more", "mcp")];
    same.notify?.();
    expect(next.tools().map((t) => t.name)).toContain("same_more");
    await next.close();
    expect(same.closed).toBe(true);
  });

  it("never reuses a source without a fingerprint or one that failed", async () => {
    const plain = new StaticSource("mcp", "plain", []);
    const failed = Object.assign(new StaticSource("mcp", "bad", [], "record"), { fingerprint: "x" });
    const old = await Toolkit.create({ sources: [plain, failed] });
    const plain2 = new StaticSource("mcp", "plain", []);
    const failed2 = Object.assign(new StaticSource("mcp", "bad", []), { fingerprint: "x" });
    await Toolkit.create({ sources: [plain2, failed2], reuse: old });
    expect([plain2.builds, failed2.builds]).toEqual([1, 1]);
  });
});

describe("Toolkit.execute", () => {
  const schema = {
    type: "object",
    properties: { n: { type: "integer" }, tags: { type: "array", items: { type: "string" } } },
    required: ["n"],
    additionalProperties: false,
  };

  it("throws TOOL_NOT_FOUND for an unknown tool", async () => {
    const tk = await Toolkit.create({});
    await expect(tk.execute("nope")).rejects.toMatchObject({ code: "TOOL_NOT_FOUND", status: 404 });
  });

  it("throws INVALID_ARGUMENTS with one JSON pointer per problem", async () => {
    const tk = await Toolkit.create({ tools: [tool("t", "native", schema)] });
    const err = await tk.execute("t", { tags: ["a", 3], extra: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolnexusError);
    expect((err as ToolnexusError).errors).toEqual(
      expect.arrayContaining([
        { pointer: "/n", message: "is required" },
        { pointer: "/extra", message: "is not allowed" },
        { pointer: "/tags/1", message: "must be string" },
      ]),
    );
  });

  it("refuses a tool whose schema does not compile, with one warning naming it and its source", async () => {
    const { logger, warnings } = recordingLogger();
    const bad = tool("odd", "mcp", { type: "object", properties: { a: { $ref: "#/nowhere" } } });
    const source = new StaticSource("mcp", "srv", [bad, tool("fine", "mcp", schema)]);
    const tk = await Toolkit.create({ sources: [source], logger });
    expect(tk.tools().map((t) => t.name)).toEqual(["fine"]);
    await expect(tk.execute("odd", { a: 1 })).rejects.toMatchObject({ code: "TOOL_NOT_FOUND" });
    source.notify?.();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ tool: "odd", source: "mcp", name: "srv" });
  });

  it("compiles a schema at the first call, not at assembly; a local $ref is checked without compiling", async () => {
    const { logger, warnings } = recordingLogger();
    // Only compiling finds this one out: it is listed, and its calls say why they cannot run.
    const odd = tool("odd_type", "mcp", { type: "object", properties: { a: { type: "nonsense" } } });
    const anchored = tool("anchored", "mcp", {
      type: "object",
      $defs: { p: { $anchor: "pt", type: "number" } },
      properties: { a: { $ref: "#pt" }, b: { $ref: "#/$defs/p" } },
    });
    const lost = tool("lost_anchor", "mcp", { type: "object", properties: { a: { $ref: "#nowhere" } } });
    const tk = await Toolkit.create({ sources: [new StaticSource("mcp", "srv", [odd, anchored, lost])], logger });
    expect(tk.tools().map((t) => t.name)).toEqual(["odd_type", "anchored"]);
    expect(warnings).toEqual([expect.objectContaining({ tool: "lost_anchor", reason: expect.stringContaining("#nowhere") })]);
    await expect(tk.execute("odd_type", { a: 1 })).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
      errors: [{ pointer: "", message: expect.stringContaining("does not compile") }],
    });
    await expect(tk.execute("anchored", { a: "x", b: 1 })).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
  });

  it("refuses a tool whose name is longer than 128 characters or has other characters", async () => {
    const { logger, warnings } = recordingLogger();
    const longest = `n${"x".repeat(127)}`;
    const tk = await Toolkit.create({
      tools: [tool(longest, "native", schema), tool(`${longest}y`, "native", schema), tool("a.b", "native", schema)],
      logger,
    });
    expect(tk.tools().map((t) => t.name)).toEqual([longest]);
    expect(warnings).toEqual([
      expect.objectContaining({ tool: `${longest}y` }),
      expect.objectContaining({ tool: "a.b", reason: expect.stringContaining("name") }),
    ]);
  });

  it("refuses arguments nested too deep or too large before the tool runs, with a pointer", async () => {
    let ran = false;
    const open = {
      ...tool("open", "native", { type: "object" }),
      execute: async () => {
        ran = true;
        return { output: "", isError: false };
      },
    };
    const tk = await Toolkit.create({ tools: [open] });
    let deep: Record<string, unknown> = {};
    const root = { a: deep };
    for (let i = 0; i < 5000; i++) deep = (deep.a = {}) as Record<string, unknown>;
    const err = (await tk.execute("open", root).catch((e: unknown) => e)) as ToolnexusError;
    expect(err).toMatchObject({ code: "INVALID_ARGUMENTS", status: 422 });
    expect(err.errors?.[0]?.pointer).toBe(`/${Array(64).fill("a").join("/")}`);
    expect(err.errors?.[0]?.message).toMatch(/deeper than 64/);
    const wide = await tk.execute("open", { list: Array.from({ length: 100_001 }, () => 0) }).catch((e: unknown) => e);
    expect(wide).toMatchObject({ code: "INVALID_ARGUMENTS", errors: [{ message: expect.stringMatching(/more than 100000 values/) }] });
    expect(ran).toBe(false);
    await expect(tk.execute("open", { a: { b: [[1, { c: "ok" }]] } })).resolves.toMatchObject({ isError: false });
  });

  it("validates draft-07 schemas (as MCP servers emit) and 2020-12 schemas alike", async () => {
    const d7 = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { s: { type: "string" } },
      required: ["s"],
    };
    const d2020 = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { p: { prefixItems: [{ type: "number" }] } },
    };
    const tk = await Toolkit.create({ tools: [tool("d7", "native", d7), tool("d2020", "native", d2020)] });
    await expect(tk.execute("d7", {})).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
    await expect(tk.execute("d7", { s: "ok" })).resolves.toMatchObject({ isError: false });
    await expect(tk.execute("d2020", { p: ["x"] })).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
  });
});
