import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { streamExecute } from "../helpers/sse.js";
import { eventually, execute } from "../sources/mcp/fixture.js";
import { startV2HttpServer, type V2HttpServer } from "../fixtures/mcp/v2-http-server.js";
// @ts-expect-error -- a plain-JS fixture module shared with the stdio fixture
import { cancelled, SCHEMA_2020 } from "../fixtures/mcp/v2-tools.mjs";

const V2_STDIO = fileURLToPath(new URL("../fixtures/mcp/v2-stdio-server.mjs", import.meta.url));

/** What a 2026-07-28 server sends reaches the catalog and the REST result unchanged, over HTTP and stdio. */
describe.each(["http", "stdio"] as const)("fidelity of a 2026-only MCP server over %s", (wire) => {
  let srv: TestServer;
  let upstream: V2HttpServer | undefined;
  let log: string;
  /** The cancellations the upstream saw: in this process over HTTP, in the child's log over stdio. */
  const seenCancelled = async (): Promise<{ era: string }[]> =>
    upstream
      ? (cancelled as { era: string }[])
      : (await readFile(log, "utf8").catch(() => ""))
          .split("\n")
          .filter((l) => l.includes('"cancelled"'))
          .map((l) => JSON.parse(l) as { era: string });

  beforeAll(async () => {
    log = path.join(await mkdtemp(path.join(tmpdir(), "tn-fid-")), "events.jsonl");
    upstream = wire === "http" ? await startV2HttpServer("reject") : undefined;
    const entry = upstream ? { url: upstream.url } : { command: [process.execPath, V2_STDIO], env: { V2_LOG: log } };
    srv = await startServer({ config: { mcpServers: { up: { ...entry, prefix: false } } } });
  }, 30_000);
  afterAll(async () => {
    await srv?.close();
    await upstream?.close();
  });

  it("keeps title, outputSchema, annotations, icons and a JSON Schema 2020-12 inputSchema on the tool", () => {
    const weather = srv.app.toolnexus.state.toolkit().get("weather");
    expect(weather).toMatchObject({
      title: "Current weather",
      outputSchema: { type: "object", properties: { temp: { type: "number" }, sky: { type: "string" } }, required: ["temp", "sky"] },
      annotations: { readOnlyHint: true, openWorldHint: false },
      icons: [{ src: "https://example.com/sun.png", mimeType: "image/png", sizes: ["48x48"] }],
    });
    expect(srv.app.toolnexus.state.toolkit().get("plot")?.inputSchema).toEqual(SCHEMA_2020);
  });

  it("lists the same tool over REST with the REST shape and the schema untouched", async () => {
    const { tools } = (await (await fetch(`${srv.url}/tools`)).json()) as { tools: Record<string, unknown>[] };
    expect(tools.find((t) => t.name === "weather")).toEqual({
      name: "weather",
      description: "Structured weather",
      inputSchema: { type: "object", properties: {} },
      source: "mcp",
    });
    expect(tools.find((t) => t.name === "plot")?.inputSchema).toEqual(SCHEMA_2020);
  });

  it("validates arguments with the 2020-12 keywords and calls the tool", async () => {
    expect(await execute(srv.url, "plot", { at: [1, 2], tag: "a" })).toMatchObject({
      status: 200,
      body: { output: '{"at":[1,2],"tag":"a"}' },
    });
    const bad = await execute(srv.url, "plot", { at: [1, 2, 3] });
    expect(bad).toMatchObject({ status: 422, body: { code: "INVALID_ARGUMENTS" } });
  });

  it("gives structuredContent as the output, with the server's own parts beside it", async () => {
    const r = await execute(srv.url, "weather");
    expect(r.body).toMatchObject({ output: '{"temp":21,"sky":"sunny"}', isError: false });
    expect(r.body.metadata).toEqual({
      server: "up",
      tool: "weather",
      structuredContent: { temp: 21, sky: "sunny" },
      content: [{ type: "text", text: "21 and sunny" }],
    });
  });

  it("keeps every content part as sent: annotated text, image, audio, embedded resource, resource link", async () => {
    const r = await execute(srv.url, "media");
    expect(r.body.output).toBe("parts follow");
    expect((r.body.metadata as { content: unknown[] }).content).toEqual([
      { type: "text", text: "parts follow", annotations: { audience: ["user"], priority: 0.5 } },
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "file:///notes.txt", mimeType: "text/plain", text: "embedded" } },
      { type: "resource_link", uri: "file:///big.bin", name: "big.bin", mimeType: "application/octet-stream" },
    ]);
  });

  it.each(["modern", "legacy"] as const)("hands the tool and its results on over /mcp to a %s client", async (era) => {
    const client = new Client(
      { name: "fidelity", version: "1.0.0" },
      era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : { supportedProtocolVersions: ["2025-11-25"] },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`)));
    try {
      const tools = (await client.listTools()).tools;
      expect(tools.find((t) => t.name === "weather")).toMatchObject({
        title: "Current weather",
        outputSchema: { type: "object", properties: { temp: { type: "number" }, sky: { type: "string" } }, required: ["temp", "sky"] },
        annotations: { readOnlyHint: true, openWorldHint: false },
        icons: [{ src: "https://example.com/sun.png", mimeType: "image/png", sizes: ["48x48"] }],
      });
      expect(tools.find((t) => t.name === "plot")?.inputSchema).toEqual(SCHEMA_2020);
      expect(await client.callTool({ name: "weather", arguments: {} })).toMatchObject({
        content: [{ type: "text", text: "21 and sunny" }],
        structuredContent: { temp: 21, sky: "sunny" },
      });
      const media = await client.callTool({ name: "media", arguments: {} });
      expect((media.content as { type: string }[]).map((p) => p.type)).toEqual(["text", "image", "audio", "resource", "resource_link"]);
    } finally {
      await client.close();
    }
  });

  it("keeps isError", async () => {
    expect(await execute(srv.url, "fail")).toMatchObject({ status: 200, body: { output: "the tool says no", isError: true } });
  });

  it("relays the server's progress to an SSE caller", async () => {
    const call = await streamExecute(srv.url, "count", { arguments: {} });
    const events = await call.done;
    expect(events.map((e) => e.event)).toEqual(["progress", "progress", "result"]);
    expect(events.slice(0, 2).map((e) => e.data)).toEqual([
      { progress: 1, total: 2 },
      { progress: 2, total: 2 },
    ]);
  });

  it("tells the server when the caller's deadline passes", async () => {
    const before = (await seenCancelled()).length;
    const r = await execute(srv.url, "wait", {}, 300);
    expect(r).toMatchObject({ status: 504, body: { code: "TOOL_TIMEOUT" } });
    const seen = await eventually(
      async () => ((await seenCancelled()).length > before ? await seenCancelled() : undefined),
      5000,
      "the upstream saw the cancellation",
    );
    expect(seen.at(-1)).toEqual({ event: "cancelled", era: "modern" });
  });
});
