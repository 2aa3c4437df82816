import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Toolkit } from "../../src/core/toolkit.js";
import { defineTool } from "../../src/core/define-tool.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { StaticSource, tool } from "../helpers/static-source.js";
import { testTools } from "../helpers/tools.js";

let s: TestServer;
beforeAll(async () => {
  s = await startServer({
    config: {},
    toolkit: Toolkit.create({
      sources: [new StaticSource("mcp", "fs", [tool("fs_read", "mcp")]), new StaticSource("http", "api", [], "record")],
      tools: testTools(),
    }),
  });
});
afterAll(() => s.close());

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${s.url}${path}`, { headers });

describe("GET /tools", () => {
  it("lists every tool with name, description, inputSchema and source", async () => {
    const res = await get("/tools");
    expect(res.status).toBe(200);
    const { tools } = (await res.json()) as { tools: { name: string; source: string }[] };
    expect(tools.map((t) => t.name)).toEqual(["fs_read", "explode", "unreachable", "echo", "divide", "slow", "stubborn", "confirm"]);
    expect(tools[0]).toEqual({ name: "fs_read", description: "fs_read from mcp", inputSchema: { type: "object" }, source: "mcp" });
  });

  it("filters by ?source=", async () => {
    const { tools } = (await (await get("/tools?source=mcp,http")).json()) as { tools: { name: string }[] };
    expect(tools.map((t) => t.name)).toEqual(["fs_read"]);
  });

  it("answers in an adapter's shape with ?format=", async () => {
    const openai = (await (await get("/tools?format=openai&source=mcp")).json()) as unknown;
    expect(openai).toEqual({
      tools: [{ type: "function", function: { name: "fs_read", description: "fs_read from mcp", parameters: { type: "object" } } }],
    });
    const anthropic = (await (await get("/tools?format=anthropic&source=mcp")).json()) as unknown;
    expect(anthropic).toEqual({ tools: [{ name: "fs_read", description: "fs_read from mcp", input_schema: { type: "object" } }] });
    const gemini = (await (await get("/tools?format=gemini&source=mcp")).json()) as unknown;
    expect(gemini).toEqual({
      tools: [{ functionDeclarations: [{ name: "fs_read", description: "fs_read from mcp", parameters: { type: "object" } }] }],
    });
    expect((await get("/tools?format=cohere")).status).toBe(400);
  });

  it("one clear 400 naming the allowed values for an unknown ?source= or ?format=", async () => {
    const bad = async (query: string) => {
      const res = await get(`/tools${query}`);
      expect(res.status, query).toBe(400);
      return (await res.json()) as { code: string; detail: string };
    };
    expect(await bad("?format=cohere")).toMatchObject({
      code: "INVALID_REQUEST",
      detail: "?format=cohere is not a format: use one of openai, anthropic, gemini.",
    });
    expect((await bad("?source=mcp,bogus")).detail).toBe(
      "?source=bogus is not a tool source; sources are mcp, skill, builtin, native, http, a2a, custom (comma-separated).",
    );
    expect((await bad("?source=openapi")).detail).toContain(
      'tools imported from OpenAPI documents are listed with source "http" (?source=http)',
    );
  });

  it("sends an ETag and answers 304 to a matching If-None-Match", async () => {
    const first = await get("/tools");
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^W\/".+"$/);
    const again = await get("/tools", { "if-none-match": etag ?? "" });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const other = await get("/tools?source=mcp", { "if-none-match": etag ?? "" });
    expect(other.status).toBe(200);
  });
});

describe("GET /tools/{name}", () => {
  it("describes one tool, 404 TOOL_NOT_FOUND otherwise", async () => {
    expect(await (await get("/tools/echo")).json()).toMatchObject({ name: "echo", source: "native" });
    const res = await get("/tools/missing");
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: "TOOL_NOT_FOUND" });
  });
});

describe("service routes", () => {
  it("/healthz and /readyz answer 200 once loaded", async () => {
    expect(await (await get("/healthz")).json()).toEqual({ status: "ok" });
    expect(await (await get("/readyz")).json()).toEqual({ status: "ready" });
  });

  it("/status lists each source with its state, failed ones included", async () => {
    const body = (await (await get("/status")).json()) as Record<string, unknown>;
    expect(body).toEqual({
      ready: true,
      state: "ready",
      tools: 8,
      sources: [
        { source: "mcp", name: "fs", state: "connected", tools: 1 },
        { source: "http", name: "api", state: "failed", tools: 0, error: "could not start" },
      ],
      // Pinning is on (warn) by default, its pins kept in the process without pinning.file or redis.
      pins: { mode: "warn", newTools: "allow", store: "memory", pending: [] },
    });
  });

  it("/skills and /skills/prompt answer with an empty catalog when no skill source is configured", async () => {
    expect(await (await get("/skills")).json()).toEqual({ skills: [], skipped: [] });
    const prompt = await get("/skills/prompt");
    expect(prompt.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await prompt.text()).toBe("No skills are currently available.");
  });

  it("/docs serves Swagger UI", async () => {
    const res = await get("/docs/");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("swagger");
  });
});

describe("readiness while loading", () => {
  it("503 NOT_READY on /readyz and tool routes until the toolkit is built; /healthz stays 200", async () => {
    let release!: (tk: Toolkit) => void;
    const later = new Promise<Toolkit>((r) => {
      release = r;
    });
    const server = await startServerWithoutWaiting(later);
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ code: "NOT_READY" });
      expect((await fetch(`${server.url}/tools`)).status).toBe(503);
      expect(await (await fetch(`${server.url}/status`)).json()).toMatchObject({ ready: false, state: "loading" });
      release(await Toolkit.create({ tools: [defineTool({ name: "t", description: "", run: () => "ok" })] }));
      await server.app.toolnexus.ready;
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      await server.app.close();
    }
  });
});

async function startServerWithoutWaiting(toolkit: Promise<Toolkit>) {
  const { buildServer } = await import("../../src/server/build-server.js");
  const app = await buildServer({ toolkit, logger: false });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const addr = app.server.address() as { port: number };
  return { app, url: `http://127.0.0.1:${addr.port}` };
}
