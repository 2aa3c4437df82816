import { describe, expect, it } from "vitest";
import { buildSurface, templateMatches } from "../../../src/core/surface/catalog.js";
import { exposedPromptName, exposedUri, prefixOfUri, upstreamUri, uriPrefix, uriProblem } from "../../../src/core/surface/names.js";
import type { SurfaceLists, SurfaceProvider } from "../../../src/core/surface/provider.js";
import { rewriteMessages, rewriteParts, rewriteToolMeta } from "../../../src/core/surface/rewrite.js";

describe("surface names", () => {
  it("maps URIs to <prefix>+<uri>, ui:// to ui://<prefix>+<rest>, and back", () => {
    expect(exposedUri("docs", "file:///a.txt")).toBe("docs+file:///a.txt");
    expect(exposedUri("docs", "ui://widget/app.html")).toBe("ui://docs+widget/app.html");
    expect(exposedUri(false, "file:///a.txt")).toBe("file:///a.txt");
    expect(upstreamUri("docs", "docs+file:///a.txt")).toBe("file:///a.txt");
    expect(upstreamUri("docs", "ui://docs+widget/app.html")).toBe("ui://widget/app.html");
    expect(upstreamUri("docs", "other+file:///a.txt")).toBeUndefined();
    expect(upstreamUri("docs", "docs%2Bfile:///a.txt")).toBeUndefined();
    expect(upstreamUri(false, "git+ssh://x")).toBe("git+ssh://x");
  });

  it("makes a prefix a valid scheme and finds it again", () => {
    expect(uriPrefix("my_server")).toBe("my-server");
    expect(uriPrefix("1x")).toBe("x1x");
    expect(prefixOfUri("my-server+file:///a")).toBe("my-server");
    expect(prefixOfUri("ui://docs+w/a")).toBe("docs");
    expect(prefixOfUri("file:///a+b")).toBeUndefined();
  });

  it("names prompts like tools", () => {
    expect(exposedPromptName("my server", "greet")).toBe("my_server_greet");
    expect(exposedPromptName(false, "greet")).toBe("greet");
  });

  it("refuses dot segments, raw or encoded, control characters and empty URIs", () => {
    expect(uriProblem("a+file:///x/../y")).toMatch(/segment/);
    expect(uriProblem("a+file:///x/%2E%2e/y")).toMatch(/segment/);
    expect(uriProblem("a+file:///x/./y")).toMatch(/segment/);
    expect(uriProblem("a+file:///x y")).toMatch(/whitespace/);
    expect(uriProblem("")).toMatch(/empty/);
    expect(uriProblem("a+file:///x/..y/%20z")).toBeUndefined();
    // A template variable carrying an encoded "../" (or "..\\") climbs out of its template.
    expect(uriProblem("a+file:///items/%2E%2E%2Fsecret")).toMatch(/segment/);
    expect(uriProblem("a+file:///items/..%2fsecret")).toMatch(/segment/);
    expect(uriProblem("a+file:///items/..%5Csecret")).toMatch(/segment/);
    expect(uriProblem("a+file:///items/..\\secret")).toMatch(/segment/);
    expect(uriProblem("a+file:///items/a%2Fb")).toBeUndefined();
  });

  it("rewrites resource links, embedded resources, prompt messages and a tool's MCP Apps pointer", () => {
    const map = (u: string) => exposedUri("p", u);
    expect(
      rewriteParts(
        [
          { type: "resource_link", uri: "file:///a", name: "a" },
          { type: "resource", resource: { uri: "file:///b", text: "b" } },
          { type: "text", text: "file:///c" },
        ],
        map,
      ),
    ).toEqual([
      { type: "resource_link", uri: "p+file:///a", name: "a" },
      { type: "resource", resource: { uri: "p+file:///b", text: "b" } },
      { type: "text", text: "file:///c" },
    ]);
    expect(rewriteMessages([{ role: "user", content: { type: "resource_link", uri: "x://y", name: "y" } }], map)).toEqual([
      { role: "user", content: { type: "resource_link", uri: "p+x://y", name: "y" } },
    ]);
    expect(rewriteToolMeta({ ui: { resourceUri: "ui://w/a.html", csp: {} }, "ui/resourceUri": "ui://w/a.html", other: 1 }, map)).toEqual({
      ui: { resourceUri: "ui://p+w/a.html", csp: {} },
      "ui/resourceUri": "ui://p+w/a.html",
      other: 1,
    });
  });

  it("matches URI templates", () => {
    expect(templateMatches("file:///items/{id}", "file:///items/3")).toBe(true);
    expect(templateMatches("file:///items/{id}", "file:///items/3/4")).toBe(false);
    expect(templateMatches("skill://{+path}", "skill://a/b/SKILL.md")).toBe(true);
  });
});

describe("the merged surface", () => {
  const provider = (name: string, prefix: string | false, lists: Partial<SurfaceLists>): SurfaceProvider => ({
    name,
    surfacePrefix: prefix,
    tools: () => [],
    surfaceLists: () => ({
      resources: [],
      templates: [],
      prompts: [],
      capabilities: { resources: true, subscribe: false, prompts: true, completions: false },
      ...lists,
    }),
    readResource: async () => ({}),
    getPrompt: async () => ({}),
    complete: async () => ({}),
  });

  it("keeps both servers' same names apart under their prefixes and routes each back", () => {
    const a = provider("a", "a", { resources: [{ uri: "file:///x", name: "x" }], prompts: [{ name: "greet" }] });
    const b = provider("b", "b", { resources: [{ uri: "file:///x", name: "x" }], prompts: [{ name: "greet" }] });
    const s = buildSurface([a, b], { debug() {}, info() {}, warn() {}, error() {} });
    expect(s.resources.map((e) => e.item.uri)).toEqual(["a+file:///x", "b+file:///x"]);
    expect(s.prompt("b_greet")?.owner).toBe(b);
    expect(s.route("b+file:///x")).toEqual({ owner: b, upstream: "file:///x" });
    expect(s.route("c+file:///x")).toBeUndefined();
  });

  it("refuses a prefix-false collision with a warning naming both, once", () => {
    const warnings: unknown[] = [];
    const log = { debug() {}, info() {}, warn: (o: unknown) => void warnings.push(o), error() {} };
    const a = provider("a", false, { resources: [{ uri: "file:///x" }], prompts: [{ name: "greet" }] });
    const b = provider("b", false, { resources: [{ uri: "file:///x" }], prompts: [{ name: "greet" }] });
    const warned = new Set<string>();
    const s = buildSurface([a, b], log, warned);
    buildSurface([a, b], log, warned);
    expect(s.resources).toHaveLength(1);
    expect(s.prompts.map((p) => p.owner)).toEqual([a]);
    expect(warnings).toEqual([
      expect.objectContaining({ resource: "file:///x", source: "mcp/b", earlier: "mcp/a" }),
      expect.objectContaining({ prompt: "greet", source: "mcp/b", earlier: "mcp/a" }),
    ]);
  });
});
