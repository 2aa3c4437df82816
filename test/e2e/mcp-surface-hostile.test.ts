import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { errorOf, result, rpc, type Json } from "../helpers/surface-rpc.js";

const HOSTILE = fileURLToPath(new URL("../fixtures/mcp/hostile-surface-server.mjs", import.meta.url));

describe("an upstream that answers resources/read with 100 MB or garbage", () => {
  let srv: TestServer;
  let remote: ChildProcess;
  beforeAll(async () => {
    // The same server over streamable HTTP, its own process (its 100 MB answer is not this one's heap).
    remote = spawn(process.execPath, [HOSTILE, "http"], { stdio: ["ignore", "pipe", "inherit"] });
    const [line] = (await once(remote.stdout!, "data")) as [Buffer];
    const url = line.toString().trim();
    // h waits long for an answer (so an error before it is the dropped line's); slow gives up after 2 s.
    const server = (timeout: number) => ({ command: [process.execPath, HOSTILE], timeout });
    srv = await startServer({ config: { mcpServers: { h: server(30_000), slow: server(2000), web: { url, timeout: 30_000 } } } });
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
    remote?.kill();
  });

  it("answers a 100 MB read with a JSON-RPC error at once, never holding the body, and goes on serving", async () => {
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
    const started = Date.now();
    const answer = await rpc(`${srv.url}/mcp`, "resources/read", { uri: "h+big://100mb" }, "2026");
    clearInterval(sampler);
    expect(errorOf(answer)).toMatchObject({ code: -32603, message: expect.stringMatching(/longer than \d+ bytes and was dropped/) });
    // Answered from the dropped line, not by the server's 30 s timeout.
    expect(Date.now() - started).toBeLessThan(30_000);
    // Never the body as a string (100 MB of heap): the line was dropped at the limit, in buffers outside the heap.
    expect(peak - before).toBeLessThan(48 * 1024 * 1024);
    const small = result(await rpc(`${srv.url}/mcp`, "resources/read", { uri: "h+ok://small" }, "2025"));
    expect((small.contents as Json[])[0]?.text).toBe("small");
  }, 60_000);

  it("cuts a remote server's 100 MB answer as it arrives: a JSON-RPC error, never the body held", async () => {
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
    const started = Date.now();
    const answer = await rpc(`${srv.url}/mcp`, "resources/read", { uri: "web+big://100mb" }, "2026");
    clearInterval(sampler);
    expect(errorOf(answer)).toMatchObject({ code: -32000, data: expect.objectContaining({ code: "UPSTREAM_UNAVAILABLE" }) });
    expect(errorOf(answer).message).toMatch(/longer than \d+ bytes/);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(peak - before).toBeLessThan(48 * 1024 * 1024);
    const small = result(await rpc(`${srv.url}/mcp`, "resources/read", { uri: "web+ok://small" }, "2026"));
    expect((small.contents as Json[])[0]?.text).toBe("small");
  }, 60_000);

  it("answers contents that are no list, and a line that is no JSON, with JSON-RPC errors", async () => {
    for (const era of ["2025", "2026"] as const) {
      const shape = errorOf(await rpc(`${srv.url}/mcp`, "resources/read", { uri: "h+bad://shape" }, era));
      expect(shape.code).toBe(-32000);
      expect(shape.data?.code).toBe("UPSTREAM_UNAVAILABLE");
    }
    // A line that is no JSON names no request: the read ends at the server's timeout (-32001, request timeout).
    const json = errorOf(await rpc(`${srv.url}/mcp`, "resources/read", { uri: "slow+bad://json" }, "2026"));
    expect(json.code).toBe(-32001);
    expect(json.data?.code).toBe("TOOL_TIMEOUT");
    const small = result(await rpc(`${srv.url}/mcp`, "resources/read", { uri: "h+ok://small" }, "2026"));
    expect((small.contents as Json[])[0]?.text).toBe("small");
  }, 30_000);
});
