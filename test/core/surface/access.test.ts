import { describe, expect, it } from "vitest";
import { surfaceGlob, viewSurface, type SurfaceViewer } from "../../../src/core/surface/access.js";
import { buildSurface } from "../../../src/core/surface/catalog.js";
import type { SurfaceLists, SurfaceProvider } from "../../../src/core/surface/provider.js";
import type { Tool } from "../../../src/core/types.js";

const log = { debug() {}, info() {}, warn() {}, error() {} };
const tool = (name: string, meta?: Record<string, unknown>): Tool =>
  ({ name, description: name, inputSchema: { type: "object" }, source: "mcp", ...(meta ? { meta } : {}) }) as unknown as Tool;

function provider(name: string, tools: Tool[], lists: Partial<SurfaceLists>): SurfaceProvider {
  return {
    name,
    surfacePrefix: name,
    tools: () => tools,
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
  };
}

// Two servers: docs (one tool, a public and a private resource, a template, a prompt) and an app server whose
// tool points at its ui:// resource.
const docsTool = tool("docs_search");
const appTool = tool("app_show", { ui: { resourceUri: "ui://app+widget.html" } });
const docs = provider("docs", [docsTool], {
  resources: [
    { uri: "file:///public/a.md", name: "a" },
    { uri: "file:///private/b.md", name: "b" },
  ],
  templates: [{ uriTemplate: "file:///public/{name}", name: "pub" }],
  prompts: [{ name: "summarize" }, { name: "internal" }],
});
const app = provider("app", [appTool], {
  resources: [
    { uri: "ui://widget.html", name: "w" },
    { uri: "file:///notes", name: "n" },
  ],
});
const surface = buildSurface([docs, app], log);
const all = new Set([docsTool, appTool]);

const uris = (v: SurfaceViewer, usable: ReadonlySet<Tool>) => viewSurface(surface, v, usable).resources.map((e) => e.item.uri);
const prompts = (v: SurfaceViewer, usable: ReadonlySet<Tool>) => viewSurface(surface, v, usable).prompts.map((e) => e.item.name);

describe("what a caller sees of the surface", () => {
  it("by default, everything of the servers whose tools it may use, and no ui:// app of a tool it may not use", () => {
    const onlyDocs = { allows: (t: string) => t.startsWith("docs_") };
    expect(uris(onlyDocs, new Set([docsTool]))).toEqual(["docs+file:///public/a.md", "docs+file:///private/b.md"]);
    expect(prompts(onlyDocs, new Set([docsTool]))).toEqual(["docs_summarize", "docs_internal"]);
    expect(uris({ allows: () => true }, all)).toHaveLength(4);
  });

  it("with globs on a grant, what they name instead (granting beyond its tools' servers), the apps still following the tools", () => {
    const viewer: SurfaceViewer = {
      allows: (t) => t.startsWith("app_"),
      surfaceGrants: [
        { tools: (t) => t.startsWith("app_"), resources: surfaceGlob(["docs+file:///public/*"]), prompts: surfaceGlob(["docs_sum*"]) },
      ],
    };
    const v = viewSurface(surface, viewer, new Set([appTool]));
    // The app's ui:// resource follows its tool; app's other resource is not named by the globs.
    expect(v.resources.map((e) => e.item.uri)).toEqual(["docs+file:///public/a.md", "ui://app+widget.html"]);
    expect(v.templates.map((e) => e.item.uriTemplate)).toEqual(["docs+file:///public/{name}"]);
    expect(v.prompts.map((e) => e.item.name)).toEqual(["docs_summarize"]);
    const route = surface.route("docs+file:///public/deep/c.md");
    expect(route && v.mayRead(route, "docs+file:///public/deep/c.md")).toBe(true);
    const privateRoute = surface.route("docs+file:///private/b.md");
    expect(privateRoute && v.mayRead(privateRoute, "docs+file:///private/b.md")).toBe(false);
  });

  it("unions a caller's grants: one with globs, one with its tools' servers", () => {
    const viewer: SurfaceViewer = {
      allows: () => true,
      surfaceGrants: [
        { tools: (t) => t.startsWith("docs_"), resources: surfaceGlob(["docs+file:///public/*"]) },
        { tools: (t) => t.startsWith("app_") },
      ],
    };
    expect(uris(viewer, all)).toEqual(["docs+file:///public/a.md", "ui://app+widget.html", "app+file:///notes"]);
    // No prompt globs on the first grant: its tools' server's prompts.
    expect(prompts(viewer, all)).toEqual(["docs_summarize", "docs_internal"]);
  });

  it("narrows through a bundle: its globs, or its servers, never more than the caller had", () => {
    const bundled: SurfaceViewer = { allows: () => true, bundleSurface: { prompts: surfaceGlob(["*_internal"]) } };
    expect(prompts(bundled, all)).toEqual(["docs_internal"]);
    const inDocsBundle: SurfaceViewer = { allows: (t) => t.startsWith("docs_"), bundleSurface: {} };
    expect(uris(inDocsBundle, new Set([docsTool]))).toEqual(["docs+file:///public/a.md", "docs+file:///private/b.md"]);
    const narrowGrant: SurfaceViewer = {
      allows: () => true,
      surfaceGrants: [{ tools: () => true, resources: surfaceGlob(["app+*"]) }],
      bundleSurface: { resources: surfaceGlob(["docs+*", "app+*"]) },
    };
    expect(uris(narrowGrant, all)).toEqual(["ui://app+widget.html", "app+file:///notes"]);
  });

  it("shows nobody a withheld prompt or template, nor reads what only a withheld template makes", () => {
    const v = viewSurface(surface, { allows: () => true }, all, (k) => k === "prompt:docs_internal" || k.startsWith("resourceTemplate:"));
    expect(v.prompts.map((e) => e.item.name)).toEqual(["docs_summarize"]);
    expect(v.templates).toEqual([]);
    expect(v.template("docs+file:///public/{name}")).toBeUndefined();
    const made = surface.route("docs+file:///public/z.md");
    expect(made && v.mayRead(made, "docs+file:///public/z.md")).toBe(false);
    const listed = surface.route("docs+file:///public/a.md");
    expect(listed && v.mayRead(listed, "docs+file:///public/a.md")).toBe(true);
  });

  it("globs: * crosses /, ? is one character, the rest is literal", () => {
    const m = surfaceGlob(["docs+file:///a/*", "p_?"]);
    expect(m("docs+file:///a/b/c")).toBe(true);
    expect(m("docs+file:///ab")).toBe(false);
    expect(m("docsXfile:///a/b")).toBe(false);
    expect(m("p_1")).toBe(true);
    expect(m("p_12")).toBe(false);
  });
});
