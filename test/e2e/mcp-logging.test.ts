import { fileURLToPath } from "node:url";
import { Client, LOG_LEVEL_META_KEY, StreamableHTTPClientTransport, type LoggingMessageNotification } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { streamExecute } from "../helpers/sse.js";
import { startBolted2026Server, type Bolted2026Server } from "../fixtures/mcp/bolted-2026-server.js";

const LOGGING_STDIO = fileURLToPath(new URL("../fixtures/mcp/logging-server.mjs", import.meta.url));

// Both upstreams log the same two messages during `chatty`.
const LOGS = [
  { level: "info", logger: "chatty", data: "warming up" },
  { level: "warning", data: { step: 2, note: "almost" } },
];

/** An upstream's log messages during a call reach the caller: `event: log` over SSE, notifications/message on /mcp. */
describe("upstream log messages", () => {
  let srv: TestServer;
  let modern: Bolted2026Server;

  beforeAll(async () => {
    modern = await startBolted2026Server();
    srv = await startServer({
      config: { mcpServers: { modern: { url: modern.url }, legacy: { command: [process.execPath, LOGGING_STDIO] } } },
    });
  }, 30_000);
  afterAll(async () => {
    await srv?.close();
    await modern?.close();
  });

  /** A /mcp client of that era; what it logged, by call. */
  async function mcpCall(era: "modern" | "legacy", tool: string, meta: Record<string, unknown> = {}) {
    const client = new Client(
      { name: "logs", version: "1.0.0" },
      era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : { supportedProtocolVersions: ["2025-11-25"] },
    );
    const logs: LoggingMessageNotification["params"][] = [];
    client.setNotificationHandler("notifications/message", (n) => void logs.push(n.params));
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`)));
    try {
      const result = await client.callTool({ name: tool, arguments: {}, _meta: meta });
      return { result, logs };
    } finally {
      await client.close();
    }
  }

  it.each(["modern_chatty", "legacy_chatty"])("relays them to an SSE caller as log events (%s)", async (tool) => {
    const call = await streamExecute(srv.url, tool, { arguments: {} });
    const events = await call.done;
    expect(events.at(-1)?.event).toBe("result");
    expect(events.filter((e) => e.event === "log").map((e) => e.data)).toEqual(LOGS);
  });

  it("asks a 2026 upstream for them only when the caller wants them", async () => {
    const before = modern.callMeta.length;
    await streamExecute(srv.url, "modern_chatty", { arguments: {} }).then((c) => c.done);
    await fetch(`${srv.url}/tools/modern_chatty/execute`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(modern.callMeta.slice(before).map((m) => m[LOG_LEVEL_META_KEY])).toEqual(["debug", undefined]);
  });

  it.each(["modern_chatty", "legacy_chatty"])("relays them to a 2025 /mcp client (%s)", async (tool) => {
    const { result, logs } = await mcpCall("legacy", tool);
    expect(result.content).toEqual([{ type: "text", text: "chatted" }]);
    expect(logs).toEqual(LOGS);
  });

  it.each(["modern_chatty", "legacy_chatty"])("relays them to a 2026 /mcp client at the level it asked for (%s)", async (tool) => {
    expect((await mcpCall("modern", tool, { [LOG_LEVEL_META_KEY]: "warning" })).logs).toEqual([LOGS[1]]);
    // No level named: no log messages (2026-07-28).
    expect((await mcpCall("modern", tool)).logs).toEqual([]);
  });
});
