import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { eventually, faultServer, fixtureLog, readEvents } from "../sources/mcp/fixture.js";

describe("client disconnect mid-call over a real socket", () => {
  let srv: TestServer;
  let log: string;

  beforeAll(async () => {
    ({ log } = await fixtureLog());
    srv = await startServer({ config: { mcpServers: { fx: faultServer({ FIXTURE_LOG: log }) } } });
  });
  afterAll(async () => {
    await srv?.close();
  });

  it("sends notifications/cancelled to the MCP server", async () => {
    const { port } = new URL(srv.url);
    const body = JSON.stringify({ arguments: {} });
    const req = request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/tools/fx_hang/execute",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    });
    req.on("error", () => {}); // the socket is destroyed on purpose
    req.end(body);
    await eventually(
      async () => (await readEvents(log)).find((e) => e.event === "call" && e.tool === "hang"),
      5000,
      "the hang call to reach the server",
    );

    const destroyedAt = Date.now();
    req.destroy();
    const cancelled = await eventually(
      async () => (await readEvents(log)).find((e) => e.event === "cancelled"),
      5000,
      "notifications/cancelled",
    );
    const ms = cancelled.at - destroyedAt;
    console.log(`client disconnect → notifications/cancelled seen by the MCP server: ${ms} ms`);
    expect(cancelled.reason).toMatch(/closed the connection/);
    expect(ms).toBeLessThan(2000);
    await eventually(
      () => srv.logs.find((l) => l.msg === "tool call" && l.tool === "fx_hang" && l.statusCode === 499),
      3000,
      "the 499 log line",
    );
  });
});
