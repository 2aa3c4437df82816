import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { eventually, execute } from "../sources/mcp/fixture.js";
import { startV2HttpServer, type V2HttpServer } from "../fixtures/mcp/v2-http-server.js";

const EVERYTHING = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const STRICT_LEGACY = fileURLToPath(new URL("../fixtures/mcp/initialize-first-server.mjs", import.meta.url));
const V2_STDIO = fileURLToPath(new URL("../fixtures/mcp/v2-stdio-server.mjs", import.meta.url));

interface Status {
  sources: { name: string; state: string; tools: number; protocolVersion?: string; protocolReason?: string; error?: string }[];
}
const status = async (url: string) => ((await (await fetch(`${url}/status`)).json()) as Status).sources;
const listed = async (url: string) =>
  ((await (await fetch(`${url}/tools?source=mcp`)).json()) as { tools: { name: string; inputSchema: unknown }[] }).tools;

/** An HTTP endpoint that answers every JSON-RPC request with a result of the wrong shape. */
async function garbageServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += String(c)));
    req.on("end", () => {
      let id: unknown = null;
      try {
        id = (JSON.parse(body) as { id?: unknown }).id ?? null;
      } catch {
        // not JSON: answered with garbage all the same
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id, result: { supportedVersions: "every one", capabilities: 42 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

describe("MCP servers of both protocol eras in one config", () => {
  let srv: TestServer;
  let modern: V2HttpServer;
  let dual: V2HttpServer;
  let garbage: { url: string; server: Server };
  let log: string;

  beforeAll(async () => {
    modern = await startV2HttpServer("reject");
    dual = await startV2HttpServer("stateless");
    garbage = await garbageServer();
    log = path.join(await mkdtemp(path.join(tmpdir(), "tn-v2-")), "serve.jsonl");
    srv = await startServer({
      config: {
        mcpServers: {
          modern: { url: modern.url },
          "modern-stdio": { command: [process.execPath, V2_STDIO], env: { V2_LOG: log } },
          legacy: { command: [process.execPath, EVERYTHING, "stdio"] },
          pinned: { url: dual.url, protocolVersion: "2025-11-25" },
          "pinned-modern": { command: [process.execPath, EVERYTHING, "stdio"], protocolVersion: "2026-07-28" },
          garbage: { url: garbage.url, timeout: 2000 },
          "exits-on-probe": { command: [process.execPath, STRICT_LEGACY] },
          // The server's own names; a second source with the same names is refused tool by tool.
          own: { url: modern.url, prefix: false },
          clash: { url: modern.url, prefix: false },
          renamed: { url: modern.url, prefix: "two eras" },
        },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
    await modern?.close();
    await dual?.close();
    garbage?.server.close();
  });

  it("shows each server's negotiated revision in /status", async () => {
    const byName = Object.fromEntries((await status(srv.url)).map((s) => [s.name, s]));
    expect(byName.modern).toMatchObject({ state: "connected", protocolVersion: "2026-07-28" });
    expect(byName["modern-stdio"]).toMatchObject({ state: "connected", protocolVersion: "2026-07-28" });
    expect(byName.legacy).toMatchObject({ state: "connected", protocolVersion: "2025-11-25" });
    expect(byName.pinned).toMatchObject({ state: "connected", protocolVersion: "2025-11-25" });
    // Each says why: a stdio server is asked initialize first; an HTTP server that refuses it is 2026-only.
    expect(byName.legacy?.protocolReason).toMatch(/^stdio: initialize first/);
    expect(byName["modern-stdio"]?.protocolReason).toMatch(/refused initialize; it speaks 2026-07-28 only/);
    expect(byName.modern?.protocolReason).toBe("the server offers only 2026-07-28");
    expect(byName.pinned?.protocolReason).toBe("pinned by the server's protocolVersion");
    // The 2026-only HTTP server was asked initialize once per source (refused), after its discover.
    expect(modern.methods).toContain("server/discover");
    expect(modern.methods.indexOf("server/discover")).toBeLessThan(modern.methods.indexOf("initialize"));
    const served = (await readFile(log, "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { era: string });
    expect(served.map((s) => s.era)).toEqual(["modern"]);
  });

  it("serves the tools of a 2026-only and a 2025-only server over REST", async () => {
    expect(await execute(srv.url, "modern_echo", { message: "hi" })).toMatchObject({
      status: 200,
      body: { output: "modern: hi", isError: false },
    });
    expect(await execute(srv.url, "modern-stdio_echo", { message: "hi" })).toMatchObject({
      status: 200,
      body: { output: "modern: hi", isError: false },
    });
    expect(await execute(srv.url, "legacy_echo", { message: "hi" })).toMatchObject({
      status: 200,
      body: { output: "Echo: hi", isError: false },
    });
  });

  it("connects with initialize to a stdio server that exits on the server/discover probe", async () => {
    expect((await status(srv.url)).find((s) => s.name === "exits-on-probe")).toMatchObject({
      state: "connected",
      protocolVersion: "2025-06-18",
    });
    expect(await execute(srv.url, "exits-on-probe_ping")).toMatchObject({ status: 200, body: { output: "pong" } });
  });

  it("keeps a server's own tool names with prefix: false, and refuses a later source's colliding names", async () => {
    const names = (await listed(srv.url)).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["echo", "weather", "two_eras_echo", "modern_echo"]));
    expect(names.filter((n) => n === "echo")).toHaveLength(1);
    expect(await execute(srv.url, "echo", { message: "mine" })).toMatchObject({
      status: 200,
      body: { output: "modern: mine", metadata: { server: "own", tool: "echo" } },
    });
    const warnings = srv.logs.filter((l) => l.level === 40 && l.tool === "echo" && String(l.msg).includes("collides"));
    expect(warnings).toEqual([expect.objectContaining({ kept: "mcp/own", dropped: "mcp/clash" })]);
    // The refused source still runs: only its colliding names are left out.
    const sources = await status(srv.url);
    const modernTools = sources.find((s) => s.name === "modern")?.tools;
    expect(sources.find((s) => s.name === "clash")).toMatchObject({ state: "connected", tools: modernTools });
  });

  it("honours a protocolVersion pin: a 2025 pin uses initialize on a server that speaks both", async () => {
    expect(await execute(srv.url, "pinned_echo", { message: "hi" })).toMatchObject({ status: 200, body: { output: "legacy: hi" } });
    expect(dual.methods).toContain("initialize");
    expect(dual.methods).not.toContain("server/discover");
  });

  it("fails a 2026 pin against a 2025-only server, without fallback", async () => {
    const pinned = (await status(srv.url)).find((s) => s.name === "pinned-modern");
    expect(pinned).toMatchObject({ state: "failed", error: expect.stringContaining("2026-07-28") });
    expect((await listed(srv.url)).some((t) => t.name.startsWith("pinned-modern_"))).toBe(false);
  });

  it("marks a server that answers server/discover with garbage failed, and serves the rest", async () => {
    const bad = (await status(srv.url)).find((s) => s.name === "garbage");
    expect(bad?.state).toBe("failed");
    // The probe found no 2026 evidence, so initialize was tried; its answer is refused in one line.
    expect(bad?.error).toMatch(/^Invalid result for initialize: .{10,}$/);
    expect(bad?.error?.length).toBeLessThanOrEqual(320);
    expect(srv.logs.some((l) => l.name === "garbage" && l.level === 40)).toBe(true);
    expect((await execute(srv.url, "modern_echo", { message: "still" })).body.output).toBe("modern: still");
  });

  it("re-lists a 2026 server's tools when it announces a change on its listen stream", async () => {
    expect((await listed(srv.url)).map((t) => t.name)).not.toContain("modern_late");
    modern.grow();
    await eventually(async () => (await listed(srv.url)).some((t) => t.name === "modern_late") || undefined, 5000, "modern_late listed");
    expect(modern.methods).toContain("subscriptions/listen");
    expect(await execute(srv.url, "modern_late")).toMatchObject({ status: 200, body: { output: "late" } });
  });
});
