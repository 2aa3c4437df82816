import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { eventually, execute } from "../sources/mcp/fixture.js";
import { freePort } from "../helpers/free-port.js";

const moduleFile = (p: string) => fileURLToPath(new URL(`../../node_modules/${p}`, import.meta.url));
const EVERYTHING = moduleFile("@modelcontextprotocol/server-everything/dist/index.js");
const FILESYSTEM = moduleFile("@modelcontextprotocol/server-filesystem/dist/index.js");

/** Starts server-everything in an HTTP mode (`streamableHttp` or `sse`) on a free port; resolves once it listens. */
async function everythingOverHttp(mode: "streamableHttp" | "sse"): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let text = "";
    child.stderr?.on("data", (d: Buffer) => {
      text += String(d);
      if (/(listening|running) on port/i.test(text)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`server-everything ${mode} exited (${code}): ${text}`)));
  });
  return { port, child };
}

const tools = async (url: string) =>
  ((await (await fetch(`${url}/tools?source=mcp`)).json()) as { tools: { name: string }[] }).tools.map((t) => t.name);

describe("real MCP servers through REST", () => {
  let srv: TestServer;
  let dir: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    dir = await realpath(await mkdtemp(path.join(tmpdir(), "tn-fs-")));
    await writeFile(path.join(dir, "hello.txt"), "hello from disk\n");
    const http = await everythingOverHttp("streamableHttp");
    const sse = await everythingOverHttp("sse");
    children.push(http.child, sse.child);
    srv = await startServer({
      config: {
        mcpServers: {
          everything: { command: process.execPath, args: [EVERYTHING, "stdio"] },
          fs: { command: [process.execPath, FILESYSTEM, dir] },
        },
        servers: {
          "everything-http": { type: "remote", url: `http://127.0.0.1:${http.port}/mcp` },
          // No type: url ⇒ remote; this endpoint only speaks the older HTTP+SSE protocol.
          "everything.sse": { url: `http://127.0.0.1:${sse.port}/sse` },
        },
      },
    });
  });
  afterAll(async () => {
    await srv?.close();
    for (const c of children) c.kill();
  });

  it("lists every server's tools under sanitized names", async () => {
    const names = await tools(srv.url);
    for (const n of ["everything_echo", "everything_get-tiny-image", "fs_read_text_file", "everything-http_echo", "everything_sse_echo"]) {
      expect(names).toContain(n);
    }
    const status = (await (await fetch(`${srv.url}/status`)).json()) as { sources: { name: string; state: string }[] };
    const mcp = status.sources.filter((s) => ["everything", "fs", "everything-http", "everything.sse"].includes(s.name));
    expect(mcp.map((s) => s.state)).toEqual(["connected", "connected", "connected", "connected"]);
    expect(srv.logs.some((l) => l.name === "everything.sse" && String(l.msg).includes("falling back to SSE"))).toBe(true);
  });

  it.each(["everything", "everything-http", "everything_sse"])("executes echo over %s", async (server) => {
    const r = await execute(srv.url, `${server}_echo`, { message: "hi" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ output: "Echo: hi", isError: false });
  });

  it("returns structuredContent as JSON output", async () => {
    const r = await execute(srv.url, "everything_get-structured-content", { location: "Chicago" });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body.output as string)).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });
  });

  it("keeps an image result in metadata.content", async () => {
    const r = await execute(srv.url, "everything-http_get-tiny-image");
    expect(r.status).toBe(200);
    expect(r.body.output).toBe("Here's the image you requested:\nThe image above is the MCP logo.");
    const content = (r.body.metadata as { content: { type: string; mimeType?: string; data?: string }[] }).content;
    expect(content.map((p) => p.type)).toEqual(["text", "image", "text"]);
    expect(content[1]).toMatchObject({ mimeType: "image/png", data: expect.stringMatching(/^iVBOR/) });
  });

  it("reads a file through server-filesystem and reports a denied path as isError", async () => {
    const ok = await execute(srv.url, "fs_read_text_file", { path: path.join(dir, "hello.txt") });
    expect(ok.status).toBe(200);
    expect(ok.body.isError).toBe(false);
    expect(ok.body.output).toContain("hello from disk");
    const denied = await execute(srv.url, "fs_read_text_file", { path: "/etc/hostname" });
    expect(denied.status).toBe(200);
    expect(denied.body.isError).toBe(true);
    expect(denied.body.output).toMatch(/access denied|outside allowed/i);
  });

  it("logs a stdio server's stderr at debug under its name", async () => {
    await eventually(
      () => srv.logs.some((l) => l.name === "fs" && l.level === 20 && typeof l.stderr === "string") || undefined,
      3000,
      "fs stderr line",
    );
  });
});
