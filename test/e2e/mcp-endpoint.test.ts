import { execFile } from "node:child_process";
import { request } from "node:http";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServeProcess, type ServeProcess } from "../helpers/serve-process.js";
import { tempDir } from "../helpers/temp-dir.js";
import { eventually } from "../helpers/wait.js";
import { FAULT_SERVER, fixtureLog, readEvents } from "../sources/mcp/fixture.js";

const root = path.resolve(import.meta.dirname, "../..");
const EVERYTHING = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const INSPECTOR = path.join(root, "node_modules/@modelcontextprotocol/inspector-cli/build/cli.js");
const ADMIN = "admin-key-0123456789abcdef";
const LIMITED = "limited-key-0123456789abcdef";

type Json = Record<string, unknown>;

/** An SDK client over streamable HTTP with this key; `fetch` may be replaced (to alternate replicas). */
async function connect(url: string, key: string, fetchImpl?: typeof fetch): Promise<Client> {
  const client = new Client({ name: "mcp-endpoint-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      ...(fetchImpl ? { fetch: fetchImpl } : {}),
    }),
  );
  return client;
}

/** A raw POST to /mcp: status, headers and parsed JSON body. */
async function post(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Json }> {
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${ADMIN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : {}) as Json };
}

/**
 * A POST declaring a `bytes`-long body over node:http. The server refuses it from its
 * Content-Length, before the body is read; writing the body too would race that answer (EPIPE).
 */
async function postTooLarge(url: string, bytes: number): Promise<{ status: number; body: Json }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/mcp",
        method: "POST",
        headers: {
          authorization: `Bearer ${ADMIN}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": bytes,
        },
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Json });
        });
      },
    );
    req.on("error", reject);
    req.write("{");
  });
}

describe("/mcp on a real `toolnexus serve`", () => {
  let a: ServeProcess;
  let b: ServeProcess;
  let log: string;

  beforeAll(async () => {
    ({ log } = await fixtureLog());
    const config = await tempDir({
      "toolnexus.yaml": [
        "server: { mcp: { pageSize: 3 } }",
        "auth:",
        "  apiKeys:",
        `    - { id: admin, key: ${ADMIN} }`,
        `    - { id: limited, key: ${LIMITED}, tools: [echo, everything_echo] }`,
        `plugins: [${JSON.stringify(path.join(root, "examples/config/plugins/*.mjs"))}]`,
        "mcpServers:",
        `  everything: { command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(EVERYTHING)}, stdio] }`,
        `  fx: { command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(FAULT_SERVER)}], env: { FIXTURE_LOG: ${JSON.stringify(log)} } }`,
      ].join("\n"),
    });
    [a, b] = await Promise.all([startServeProcess(config), startServeProcess(config)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("tools/list is the caller's GET /tools, page by page", async () => {
    const client = await connect(a.url, ADMIN);
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      expect(page.tools.length).toBeLessThanOrEqual(3);
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    const rest = (await (await fetch(`${a.url}/tools`, { headers: { "x-api-key": ADMIN } })).json()) as { tools: { name: string }[] };
    expect(names).toEqual(rest.tools.map((t) => t.name));
    expect(pages).toBeGreaterThan(1);
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    await expect(client.listTools({ cursor: "bogus" })).rejects.toThrow(/Invalid cursor/);
    await client.close();
  });

  it("tools/call keeps text, isError, images, structured content, and names bad arguments", async () => {
    const client = await connect(a.url, ADMIN);
    expect(await client.callTool({ name: "everything_echo", arguments: { message: "hi" } })).toEqual({
      content: [{ type: "text", text: "Echo: hi" }],
    });
    expect(await client.callTool({ name: "divide", arguments: { a: 1, b: 0 } })).toEqual({
      content: [{ type: "text", text: "Cannot divide by zero" }],
      isError: true,
    });

    const image = await client.callTool({ name: "everything_get-tiny-image", arguments: {} });
    const parts = image.content as { type: string; mimeType?: string; data?: string }[];
    expect(parts.some((p) => p.type === "image" && p.mimeType === "image/png" && (p.data?.length ?? 0) > 100)).toBe(true);

    const structured = await client.callTool({ name: "everything_get-structured-content", arguments: { location: "Chicago" } });
    expect(structured.structuredContent).toEqual({ temperature: 36, conditions: "Light rain / drizzle", humidity: 82 });

    const invalid = await client.callTool({ name: "echo", arguments: { text: 42 } });
    expect(invalid.isError).toBe(true);
    expect((invalid.content as { text: string }[])[0]?.text).toContain("/text: must be string");
    await client.close();

    // The serve process writes each call's line to its stdout: it may come after the response.
    const calls = () =>
      a
        .logs()
        .filter((l) => l.msg === "tool call" && l.transport === "mcp")
        .map((l) => [l.tool, l.outcome, l.caller]);
    await expect.poll(calls, { timeout: 5_000 }).toEqual(
      expect.arrayContaining([
        ["everything_echo", "ok", "admin"],
        ["divide", "tool_error", "admin"],
        ["echo", "rejected", "admin"],
      ]),
    );
  });

  it("a progressToken gets notifications/progress from the tool", async () => {
    const client = await connect(a.url, ADMIN);
    const seen: { progress: number; total?: number }[] = [];
    const result = await client.callTool(
      { name: "everything_trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } },
      undefined,
      {
        onprogress: (p) => seen.push(p),
      },
    );
    expect(result.isError).toBeFalsy();
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(seen.every((p) => p.total === 3)).toBe(true);
    await client.close();
  });

  it("notifications/cancelled aborts the call down to the upstream MCP server", async () => {
    const client = await connect(a.url, ADMIN);
    const before = (await readEvents(log)).filter((e) => e.event === "cancelled").length;
    const calls = (await readEvents(log)).filter((e) => e.event === "call" && e.tool === "hang").length;
    const ac = new AbortController();
    const call = client.callTool({ name: "fx_hang", arguments: {} }, undefined, { signal: ac.signal });
    await eventually(async () => (await readEvents(log)).filter((e) => e.event === "call" && e.tool === "hang").length > calls);
    ac.abort("the user pressed stop");
    await expect(call).rejects.toThrow();
    const cancelled = await eventually(async () => (await readEvents(log)).filter((e) => e.event === "cancelled")[before]);
    expect(cancelled.reason).toMatch(/cancelled the call/);
    await eventually(() =>
      a.logs().find((l) => l.tool === "fx_hang" && l.outcome === "cancelled" && l.statusCode === 499 && l.transport === "mcp"),
    );
    await client.close();
  });

  it.each([
    ["an SSE stream (progressToken)", { progressToken: "p1" }],
    ["a JSON response", undefined],
  ])("closing the tools/call response aborts the call upstream: %s", async (_, meta) => {
    const before = (await readEvents(log)).filter((e) => e.event === "cancelled").length;
    const calls = (await readEvents(log)).filter((e) => e.event === "call" && e.tool === "hang").length;
    const ac = new AbortController();
    const pending = fetch(`${a.url}/mcp`, {
      method: "POST",
      signal: ac.signal,
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 99,
        method: "tools/call",
        params: { name: "fx_hang", arguments: {}, ...(meta ? { _meta: meta } : {}) },
      }),
    }).then((r) => r.text());
    await eventually(async () => (await readEvents(log)).filter((e) => e.event === "call" && e.tool === "hang").length > calls);
    ac.abort();
    await expect(pending).rejects.toThrow();
    const cancelled = await eventually(async () => (await readEvents(log)).filter((e) => e.event === "cancelled")[before]);
    expect(cancelled.reason).toMatch(/closed the connection/);
  });

  it("a restricted key lists and calls only its tools; a forbidden call is a JSON-RPC error", async () => {
    const client = await connect(a.url, LIMITED);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["everything_echo", "echo"]);
    expect(await client.callTool({ name: "echo", arguments: { text: "ok" } })).toEqual({ content: [{ type: "text", text: "ok" }] });
    const refused = await client.callTool({ name: "divide", arguments: { a: 1, b: 2 } }).then(
      () => undefined,
      (e: { code: number; data: Json }) => e,
    );
    expect(refused).toMatchObject({ code: -32602, data: { code: "FORBIDDEN" } });
    await client.close();
  });

  it("calls alternate between two replicas without session errors", async () => {
    let n = 0;
    const alternate: typeof fetch = (input, init) => {
      const target = new URL(String(input instanceof Request ? input.url : input));
      target.port = new URL(n++ % 2 === 0 ? a.url : b.url).port;
      return fetch(target, init);
    };
    const client = await connect(a.url, ADMIN, alternate);
    for (let i = 0; i < 6; i++) {
      expect(await client.callTool({ name: "echo", arguments: { text: `#${i}` } })).toEqual({ content: [{ type: "text", text: `#${i}` }] });
    }
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    // Six calls in a row alternate: three logged on each replica (not the limited key's echo on
    // a). A line comes over the process's stdout and may arrive after its response: wait for it.
    const served = (r: ServeProcess) =>
      r.logs().filter((l) => l.tool === "echo" && l.transport === "mcp" && l.outcome === "ok" && l.caller === "admin").length;
    for (const replica of [a, b]) await expect.poll(() => served(replica), { timeout: 5_000 }).toBe(3);
  });

  it("the MCP Inspector CLI lists and calls tools", async () => {
    // cwd: inspector-cli 1.0.3 finds its package.json relative to the working directory.
    const inspector = (...args: string[]) =>
      promisify(execFile)(
        process.execPath,
        [INSPECTOR, "--cli", `${a.url}/mcp`, "--transport", "http", "--header", `Authorization: Bearer ${ADMIN}`, ...args],
        { timeout: 20_000, cwd: path.dirname(INSPECTOR) },
      );
    const list = JSON.parse((await inspector("--method", "tools/list")).stdout) as { tools: { name: string }[] };
    expect(list.tools.map((t) => t.name)).toContain("everything_echo");
    const call = JSON.parse(
      (await inspector("--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=from inspector")).stdout,
    ) as Json;
    expect(call).toMatchObject({ content: [{ type: "text", text: "from inspector" }] });
  });

  it("refuses bad input with the MCP-specified errors", async () => {
    const noKey = await fetch(`${a.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get("www-authenticate")).toMatch(/^Bearer/);

    const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    expect(await post(a.url, ping)).toMatchObject({ status: 200, body: { jsonrpc: "2.0", id: 1, result: {} } });
    expect(await post(a.url, ping, { "mcp-protocol-version": "2025-06-18" })).toMatchObject({ status: 200 });
    expect(await post(a.url, ping, { "mcp-protocol-version": "1999-01-01" })).toMatchObject({
      status: 400,
      body: { error: { code: -32000 } },
    });
    expect(await post(a.url, "{oops")).toMatchObject({ status: 400, body: { id: null, error: { code: -32700 } } });
    expect(await post(a.url, '{"hello":"world"}')).toMatchObject({ status: 400, body: { id: null, error: { code: -32600 } } });
    expect(await post(a.url, `[${ping}]`)).toMatchObject({
      status: 400,
      body: { error: { code: -32600, message: expect.stringMatching(/batch/) } },
    });
    expect(await post(a.url, '{"jsonrpc":"2.0","id":2,"method":"no/such"}')).toMatchObject({
      status: 200,
      body: { id: 2, error: { code: -32601 } },
    });
    expect(await post(a.url, '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope"}}')).toMatchObject({
      body: { id: 3, error: { code: -32602, data: { code: "TOOL_NOT_FOUND" } } },
    });
    expect(await postTooLarge(a.url, 10 * 1024 * 1024)).toMatchObject({
      status: 413,
      body: { error: { code: -32000, data: { code: "PAYLOAD_TOO_LARGE" } } },
    });
    expect((await fetch(`${a.url}/mcp`, { headers: { authorization: `Bearer ${ADMIN}`, accept: "text/event-stream" } })).status).toBe(405);

    // Still serving, and no key was ever written to the log.
    expect(await post(a.url, ping)).toMatchObject({ status: 200 });
    for (const replica of [a, b]) {
      expect(replica.output()).not.toContain(ADMIN);
      expect(replica.output()).not.toContain(LIMITED);
    }
  });
});
