import { connect } from "node:net";
import path from "node:path";
import * as sdk from "@opentelemetry/sdk-trace-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { samplerFromEnv } from "../../../src/server/observability/telemetry.js";
import { startHttpMcpServer, type HttpMcpServer } from "../../fixtures/mcp/http-server.js";
import { startCollector, type Collector } from "../../helpers/otlp-collector.js";
import { startServer } from "../../helpers/server.js";
import { execute, traceparent } from "../../helpers/trace-client.js";
import { startUpstream, type Upstream } from "../../sources/http/upstream.js";

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

const UNSAMPLED = /^00-([0-9a-f]{32})-[0-9a-f]{16}-00$/;

/**
 * One server with `env` in its environment (the OTEL_TRACES_SAMPLER variables are read when
 * tracing starts), one HTTP tool call and one remote MCP call with `headers`; what went
 * upstream, what was exported and the call's log lines.
 */
async function calls(env: Record<string, string>, headers: Record<string, string> = {}) {
  Object.assign(process.env, env);
  const s = await startServer({
    config: {
      http: [{ name: "up_echo", url: `${up.url}/echo/sampled` }],
      mcpServers: { remote: { url: mcp.url } },
      telemetry: { otlp: { endpoint: collector.endpoint, protocol: "http/json" } },
    },
  }).finally(() => {
    for (const k of Object.keys(env)) delete process.env[k];
  });
  const spans = collector.spans.length;
  try {
    expect((await execute(s.url, "up_echo", headers)).status).toBe(200);
    expect((await execute(s.url, "remote_whoami", headers)).status).toBe(200);
  } finally {
    await s.close(); // flushes the batch to the collector
  }
  const call = mcp.calls.at(-1);
  return {
    http: String(up.seen.at(-1)?.headers.traceparent),
    mcpMeta: String(call?.meta?.traceparent),
    mcpHeader: String(call?.traceparent),
    exported: collector.spans.slice(spans),
    traceIds: s.logs.filter((l) => l.msg === "tool call").map((l) => l.traceId),
    warnings: s.logs.filter((l) => l.level === 40).map((l) => l.msg),
  };
}

describe("OpenTelemetry sampling (OTEL_TRACES_SAMPLER)", () => {
  it("an unsampled request exports nothing, yet its decision goes upstream (flags 00) on HTTP and in MCP _meta, and its log lines keep the trace id", async () => {
    const r = await calls({ OTEL_TRACES_SAMPLER: "parentbased_always_off" });
    expect(r.exported).toEqual([]);
    const httpTrace = UNSAMPLED.exec(r.http)?.[1];
    const mcpTrace = UNSAMPLED.exec(r.mcpMeta)?.[1];
    expect(httpTrace).toBeDefined();
    expect(mcpTrace).toBeDefined();
    expect(r.mcpHeader).toMatch(new RegExp(`^00-${mcpTrace}-[0-9a-f]{16}-00$`));
    expect(r.traceIds).toEqual([httpTrace, mcpTrace]);
  });

  it("parent-based: an incoming sampled traceparent is followed even when the root sampler says no", async () => {
    const tp = traceparent("01");
    const r = await calls({ OTEL_TRACES_SAMPLER: "parentbased_always_off" }, { traceparent: tp.header });
    const spans = r.exported.filter((x) => x.traceId === tp.traceId);
    const servers = spans.filter((x) => x.kind === 2);
    expect(servers.map((x) => x.parentSpanId)).toEqual([tp.spanId, tp.spanId]);
    expect(servers.map((x) => x.name)).toEqual(["POST /tools/:name/execute", "POST /tools/:name/execute"]);
    expect(servers[0]?.attributes).toMatchObject({
      "http.route": "/tools/:name/execute",
      "http.response.status_code": 200,
      "http.request.method": "POST",
    });
    const tool = spans.find((x) => x.name === "tool up_echo");
    expect(servers.map((x) => x.spanId)).toContain(tool?.parentSpanId);
    const egress = spans.find((x) => x.kind === 3 && x.parentSpanId === tool?.spanId);
    expect(r.http).toBe(`00-${tp.traceId}-${egress?.spanId}-01`);
    const mcpTool = spans.find((x) => x.name === "tool remote_whoami");
    expect(r.mcpMeta).toBe(`00-${tp.traceId}-${mcpTool?.spanId}-01`);
  });

  it("parent-based (the default): an incoming unsampled traceparent is followed: nothing exported, its trace id goes on with flags 00", async () => {
    const tp = traceparent("00");
    const r = await calls({}, { traceparent: tp.header });
    expect(r.exported).toEqual([]);
    expect(r.http).toMatch(new RegExp(`^00-${tp.traceId}-[0-9a-f]{16}-00$`));
    expect(r.mcpMeta).toMatch(new RegExp(`^00-${tp.traceId}-[0-9a-f]{16}-00$`));
    expect(r.traceIds).toEqual([tp.traceId, tp.traceId]);
  });

  it("always_on is not parent-based: a request whose parent said no is sampled", async () => {
    const tp = traceparent("00");
    const r = await calls({ OTEL_TRACES_SAMPLER: "always_on" }, { traceparent: tp.header });
    expect(r.exported.filter((x) => x.traceId === tp.traceId).map((x) => x.name)).toEqual(
      expect.arrayContaining(["tool up_echo", "tool remote_whoami"]),
    );
    expect(r.http).toMatch(new RegExp(`^00-${tp.traceId}-[0-9a-f]{16}-01$`));
  });

  it("traceidratio 0 samples nothing; a bad ratio samples everything and says so", async () => {
    expect((await calls({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" })).exported).toEqual([]);
    const bad = await calls({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "lots" });
    expect(bad.exported.map((x) => x.name)).toEqual(expect.arrayContaining(["tool up_echo", "tool remote_whoami"]));
    expect(bad.warnings).toContain("OTEL_TRACES_SAMPLER_ARG is not a ratio in [0, 1]; sampling everything");
  });
});

/** Resolves once `check()` holds (polled every 10 ms). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10));
}

describe("the server span", () => {
  it("of a client that goes away mid-call is still exported, marked client_closed", async () => {
    const s = await startServer({
      config: {
        plugins: [path.resolve("bench/fixtures/plugins/sleep.mjs")],
        telemetry: { otlp: { endpoint: collector.endpoint, protocol: "http/json" } },
      },
    });
    const tp = traceparent("01");
    try {
      const { hostname, port } = new URL(s.url);
      const body = JSON.stringify({ arguments: { ms: 5000 } });
      const socket = connect(Number(port), hostname);
      socket.write(
        [
          "POST /tools/sleep/execute HTTP/1.1",
          `host: ${hostname}:${port}`,
          "content-type: application/json",
          `content-length: ${body.length}`,
          `traceparent: ${tp.header}`,
          "",
          body,
        ].join("\r\n"),
      );
      // Leave once the call runs, and close the server once the server saw the client go.
      await until(() => s.app.toolnexus.state.inFlight === 1);
      socket.destroy();
      await until(() => s.app.toolnexus.state.inFlight === 0);
    } finally {
      await s.close();
    }
    const server = collector.spans.find((x) => x.traceId === tp.traceId && x.kind === 2);
    expect(server?.parentSpanId).toBe(tp.spanId);
    expect(server?.attributes["error.type"]).toBe("client_closed");
  });
});

describe("samplerFromEnv", () => {
  const warnings: string[] = [];
  const logger = { warn: (_o: unknown, msg: string) => warnings.push(msg) } as never;
  const named = (env: Record<string, string>) => samplerFromEnv(sdk, env, logger).toString();

  it("maps each name the specification defines, parent-based always on by default", () => {
    expect(named({})).toBe(new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() }).toString());
    expect(named({ OTEL_TRACES_SAMPLER: "always_off" })).toBe("AlwaysOffSampler");
    expect(named({ OTEL_TRACES_SAMPLER: "always_on" })).toBe("AlwaysOnSampler");
    expect(named({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" })).toBe("TraceIdRatioBased{0.25}");
    expect(named({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" })).toBe(
      new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(0.1) }).toString(),
    );
    expect(warnings).toEqual([]);
  });

  it("an unknown sampler falls back to the default with a warning", () => {
    expect(named({ OTEL_TRACES_SAMPLER: "jaeger_remote" })).toBe(
      new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() }).toString(),
    );
    expect(warnings.at(-1)).toBe("OTEL_TRACES_SAMPLER is not supported; using parentbased_always_on");
  });
});
