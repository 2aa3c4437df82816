import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpMcpServer, type HttpMcpServer, type SeenCall } from "../../fixtures/mcp/http-server.js";
import { startCollector, type Collector } from "../../helpers/otlp-collector.js";
import { startServer } from "../../helpers/server.js";
import { execute as rawExecute, traceparent } from "../../helpers/trace-client.js";
import { startUpstream, type Upstream } from "../../sources/http/upstream.js";

const API_KEY = "trace-key-0123456789abcdef";
let up: Upstream;
let mcp: HttpMcpServer;
let collector: Collector;

beforeAll(async () => {
  up = await startUpstream();
  mcp = await startHttpMcpServer();
  collector = await startCollector();
});
afterAll(async () => {
  await collector.close();
  await mcp.close();
  await up.close();
});

function config(protocol?: "http/json" | "http/protobuf") {
  return {
    auth: { apiKeys: [{ id: "tracer", key: API_KEY }] },
    http: [{ name: "up_echo", url: `${up.url}/echo/traced` }],
    mcpServers: { remote: { url: mcp.url } },
    ...(protocol ? { telemetry: { otlp: { endpoint: collector.endpoint, protocol } } } : {}),
  };
}

/** An execute with the test's API key and `traceparentHeader`. */
const execute = (baseUrl: string, tool: string, traceparentHeader: string) =>
  rawExecute(baseUrl, tool, { authorization: `Bearer ${API_KEY}`, traceparent: traceparentHeader });

describe("OpenTelemetry", () => {
  it("one trace from the client through toolnexus to an MCP server and an HTTP upstream (OTLP/JSON)", async () => {
    const s = await startServer({ config: config("http/json") });
    const tp = traceparent();
    const before = collector.spans.length;
    let seen: SeenCall;
    try {
      expect((await execute(s.url, "up_echo", tp.header)).status).toBe(200);
      const res = await execute(s.url, "remote_whoami", tp.header);
      expect(res.status).toBe(200);
      seen = JSON.parse(res.body.output) as SeenCall;
    } finally {
      await s.close(); // flushes the batch to the collector
    }
    // The upstreams got the same trace id: HTTP header, and MCP params._meta.traceparent.
    const upstreamTp = String(up.seen.find((r) => r.url.includes("traced"))?.headers.traceparent);
    expect(upstreamTp).toMatch(new RegExp(`^00-${tp.traceId}-[0-9a-f]{16}-01$`));
    expect(String(seen.meta?.traceparent)).toMatch(new RegExp(`^00-${tp.traceId}-`));
    expect(String(seen.traceparent)).toMatch(new RegExp(`^00-${tp.traceId}-`));

    const spans = collector.spans.slice(before).filter((x) => x.traceId === tp.traceId);
    expect(collector.contentTypes.at(-1)).toContain("application/json");
    const servers = spans.filter((x) => x.kind === 2 && x.parentSpanId === tp.spanId);
    expect(servers.length).toBeGreaterThanOrEqual(2);
    const toolSpan = spans.find((x) => x.name === "tool up_echo");
    expect(toolSpan?.attributes).toMatchObject({
      "tool.name": "up_echo",
      "tool.source": "http",
      "toolnexus.outcome": "ok",
      "toolnexus.caller": "tracer",
    });
    expect(servers.map((x) => x.spanId)).toContain(toolSpan?.parentSpanId);
    // The egress client span is the tool span's child, and its id is what the upstream saw as parent.
    const egress = spans.find((x) => x.kind === 3 && x.parentSpanId === toolSpan?.spanId);
    expect(egress).toBeDefined();
    expect(upstreamTp.split("-")[2]).toBe(egress?.spanId);
    const mcpTool = spans.find((x) => x.name === "tool remote_whoami");
    expect(mcpTool?.attributes).toMatchObject({ "tool.source": "mcp", "toolnexus.outcome": "ok" });
    expect(spans.some((x) => x.kind === 3 && x.parentSpanId === mcpTool?.spanId)).toBe(true);
    // Each call's log line carries the trace id.
    const lines = s.logs.filter((l) => l.msg === "tool call");
    expect(lines.map((l) => l.traceId)).toEqual([tp.traceId, tp.traceId]);
  });

  it("exports OTLP/protobuf by default", async () => {
    const s = await startServer({ config: config("http/protobuf") });
    const tp = traceparent();
    try {
      expect((await execute(s.url, "up_echo", tp.header)).status).toBe(200);
    } finally {
      await s.close();
    }
    expect(collector.contentTypes.at(-1)).toContain("application/x-protobuf");
    const toolSpan = collector.spans.find((x) => x.traceId === tp.traceId && x.name === "tool up_echo");
    expect(toolSpan?.attributes).toMatchObject({ "tool.name": "up_echo", "tool.source": "http", "toolnexus.caller": "tracer" });
  });

  it("off without an endpoint: no traceparent goes upstream, no traceId in the log, nothing exported", async () => {
    const s = await startServer({ config: config() });
    const tp = traceparent();
    const exports = collector.contentTypes.length;
    const calls = mcp.calls.length;
    try {
      expect((await execute(s.url, "remote_whoami", tp.header)).status).toBe(200);
      expect((await execute(s.url, "up_echo", tp.header)).status).toBe(200);
    } finally {
      await s.close();
    }
    const call = mcp.calls[calls];
    expect(call?.meta?.traceparent).toBeUndefined();
    expect(call?.traceparent).toBeUndefined();
    expect(up.seen.at(-1)?.headers.traceparent).toBeUndefined();
    expect(s.logs.filter((l) => l.msg === "tool call").every((l) => !("traceId" in l))).toBe(true);
    expect(collector.contentTypes.length).toBe(exports);
  });
});
