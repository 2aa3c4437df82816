import { describe, expect, it } from "vitest";
import { defineTool, type ToolDefinition } from "../../src/core/define-tool.js";
import { authRequired, pending, pendingOf } from "../../src/core/input/pending.js";
import { sanitize } from "../../src/core/sanitize.js";

describe("sanitize", () => {
  it("replaces every character outside [a-zA-Z0-9_-] with _", () => {
    expect(sanitize("get user")).toBe("get_user");
    expect(sanitize("a.b/c:d-e_F9")).toBe("a_b_c_d-e_F9");
    expect(sanitize("café")).toBe("caf_");
  });
});

describe("defineTool", () => {
  const schema = { type: "object", properties: { x: { type: "number" } } };

  it("turns a string return into a non-error result, with source native", async () => {
    const t = defineTool({ name: "double", description: "d", inputSchema: schema, run: ({ x }) => String(Number(x) * 2) });
    expect(t.source).toBe("native");
    await expect(t.execute({ x: 4 })).resolves.toEqual({ output: "8", isError: false });
  });

  it("passes a ToolResult through unchanged", async () => {
    const t = defineTool({ name: "r", description: "", run: () => ({ output: "no", isError: true, metadata: { a: 1 } }) });
    await expect(t.execute({})).resolves.toEqual({ output: "no", isError: true, metadata: { a: 1 } });
  });

  it("turns a throw into a model-facing isError result", async () => {
    const t = defineTool({
      name: "boom",
      description: "",
      run: async () => {
        throw new Error("bad input");
      },
    });
    await expect(t.execute({})).resolves.toEqual({ output: "bad input", isError: true });
  });

  it("answers alike whether run answers at once, through a promise or through another thenable, and turns a sync throw into isError", async () => {
    const thenable = (v: string) => ({ then: (ok: (x: string) => void) => ok(v) });
    const runs: ToolDefinition["run"][] = [
      () => "a",
      async () => "a",
      () => thenable("a") as unknown as Promise<string>,
      () => ({ output: "a", isError: false }),
      async () => ({ output: "a", isError: false }),
    ];
    for (const run of runs)
      await expect(defineTool({ name: "t", description: "", run }).execute({})).resolves.toEqual({ output: "a", isError: false });
    const syncThrow = defineTool({
      name: "t",
      description: "",
      run: () => {
        throw new Error("at once");
      },
    });
    const result = syncThrow.execute({});
    expect(result).toBeInstanceOf(Promise);
    await expect(result).resolves.toEqual({ output: "at once", isError: true });
    await expect(defineTool({ name: "t", description: "", run: () => Promise.reject("not an Error") }).execute({})).resolves.toEqual({
      output: "not an Error",
      isError: true,
    });
  });

  it("gives run an empty context when the caller passes none", async () => {
    const t = defineTool({ name: "ctx", description: "", run: (_a, ctx) => typeof ctx });
    await expect(t.execute({})).resolves.toMatchObject({ output: "object" });
  });

  it("defaults the inputSchema to an empty object schema", () => {
    expect(defineTool({ name: "n", description: "", run: () => "" }).inputSchema).toEqual({ type: "object", properties: {} });
  });
});

describe("pending", () => {
  it("builds a suspension with a generated id and reads it back", () => {
    const r = pending({ kind: "input", prompt: "Your name?" });
    expect(r.isError).toBe(true);
    expect(r.output).toBe("Your name?");
    const req = pendingOf(r);
    expect(req).toMatchObject({ kind: "input", prompt: "Your name?" });
    expect(req?.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("authRequired is an authorization request carrying the url", () => {
    const req = pendingOf(authRequired("https://login.example/authorize"));
    expect(req).toMatchObject({
      kind: "authorization",
      url: "https://login.example/authorize",
      prompt: "Login required: https://login.example/authorize",
    });
  });

  it("pendingOf is undefined for ordinary results and malformed metadata", () => {
    expect(pendingOf({ output: "x", isError: false })).toBeUndefined();
    expect(pendingOf({ output: "x", isError: true, metadata: { pending: { id: 1 } } })).toBeUndefined();
  });
});

describe("defineTool keeps taskSupport", () => {
  it("carries a definition's taskSupport onto the Tool, and leaves it out when absent", () => {
    const run = () => "ok";
    expect(defineTool({ name: "report", description: "d", taskSupport: "required", run }).taskSupport).toBe("required");
    expect(defineTool({ name: "quick", description: "d", taskSupport: "optional", run }).taskSupport).toBe("optional");
    expect(defineTool({ name: "ask", description: "d", taskSupport: "required", inputBeforeTask: true, run })).toMatchObject({
      taskSupport: "required",
      inputBeforeTask: true,
    });
    expect(defineTool({ name: "plain", description: "d", run })).not.toHaveProperty("taskSupport");
  });
});
