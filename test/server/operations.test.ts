import { afterEach, describe, expect, it } from "vitest";
import { Toolkit } from "../../src/core/toolkit.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { StaticSource } from "../helpers/static-source.js";
import { testTools } from "../helpers/tools.js";
import { executeTool } from "../helpers/execute.js";

const KEY = "ops-test-key-0123456789abcdef";
let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const post = (url: string, tool: string, args: unknown, key?: string) =>
  executeTool(url, tool, { arguments: args }, key ? { authorization: `Bearer ${key}` } : {});

function metricValue(text: string, name: string, labels: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}}`) || (labels === "" && l.startsWith(`${name} `)));
  return line === undefined ? undefined : Number(line.split(" ").at(-1));
}

describe("GET /metrics", () => {
  it("counts calls by tool, source and outcome, with durations, in-flight and source_up", async () => {
    s = await startServer({
      toolkit: Toolkit.create({
        sources: [new StaticSource("mcp", "fs", []), new StaticSource("http", "api", [], "record")],
        tools: testTools(),
      }),
    });
    await post(s.url, "echo", { text: "a" });
    await post(s.url, "echo", { text: "b" });
    await post(s.url, "divide", { a: 1, b: 0 });
    await post(s.url, "explode", {});
    await post(s.url, "echo", { text: 1 });
    await post(s.url, "ghost", {});
    await fetch(`${s.url}/tools/slow/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"arguments":{"ms":5000},"timeoutMs":50}',
    });

    const res = await fetch(`${s.url}/metrics`);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(metricValue(text, "toolnexus_tool_calls_total", 'tool="echo",source="native",outcome="ok"')).toBe(2);
    expect(metricValue(text, "toolnexus_tool_calls_total", 'tool="divide",source="native",outcome="tool_error"')).toBe(1);
    expect(metricValue(text, "toolnexus_tool_calls_total", 'tool="explode",source="custom",outcome="failed"')).toBe(1);
    expect(metricValue(text, "toolnexus_tool_calls_total", 'tool="echo",source="native",outcome="rejected"')).toBe(1);
    expect(metricValue(text, "toolnexus_tool_calls_total", 'tool="(unknown)",source="(unknown)",outcome="rejected"')).toBe(1);
    expect(metricValue(text, "toolnexus_tool_calls_total", 'tool="slow",source="native",outcome="timeout"')).toBe(1);
    expect(metricValue(text, "toolnexus_tool_duration_seconds_count", 'tool="echo",source="native"')).toBe(2);
    expect(metricValue(text, "toolnexus_tool_calls_in_flight", "")).toBe(0);
    expect(metricValue(text, "toolnexus_source_up", 'source="mcp",name="fs"')).toBe(1);
    expect(metricValue(text, "toolnexus_source_up", 'source="http",name="api"')).toBe(0);
    expect(text).toContain("process_cpu_user_seconds_total");
    expect(text).not.toContain("ghost");
  });

  it("needs an operator caller unless metrics.public", async () => {
    s = await startServer({
      config: {
        auth: {
          apiKeys: [
            { id: "a", key: KEY, operator: true },
            { id: "b", key: `${KEY}-user` },
          ],
        },
      },
    });
    expect((await fetch(`${s.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
    expect((await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${KEY}-user` } })).status).toBe(403);
    await s.close();
    s = await startServer({ config: { auth: { apiKeys: [{ id: "a", key: KEY }] }, metrics: { public: true } } });
    expect((await fetch(`${s.url}/metrics`)).status).toBe(200);
    expect((await fetch(`${s.url}/tools`)).status).toBe(401);
  });
});

describe("rate limits", () => {
  it("429 RATE_LIMITED with Retry-After past a key's budget; other keys and probes are unaffected", async () => {
    s = await startServer({
      config: {
        auth: {
          apiKeys: [
            { id: "tight", key: KEY, rateLimit: { max: 2, timeWindowMs: 60_000 } },
            { id: "free", key: `${KEY}-free` },
          ],
        },
      },
      tools: testTools(),
    });
    expect((await post(s.url, "echo", { text: "1" }, KEY)).status).toBe(200);
    expect((await post(s.url, "echo", { text: "2" }, KEY)).status).toBe(200);
    const limited = await post(s.url, "echo", { text: "3" }, KEY);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ code: "RATE_LIMITED", status: 429 });
    for (let i = 0; i < 4; i++) expect((await post(s.url, "echo", { text: "x" }, `${KEY}-free`)).status).toBe(200);
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  });

  it("server.rateLimit is the default budget, per client address when auth is off", async () => {
    s = await startServer({ config: { server: { rateLimit: { max: 1, timeWindowMs: 60_000 } } }, tools: testTools() });
    expect((await fetch(`${s.url}/tools`)).status).toBe(200);
    expect((await fetch(`${s.url}/tools`)).status).toBe(429);
  });
});

describe("load shedding", () => {
  it("503 UNDER_PRESSURE past a threshold, while the probes keep answering", async () => {
    s = await startServer({ config: { server: { pressure: { maxHeapUsedBytes: 1 } } }, tools: testTools() });
    let res: Response | undefined;
    for (let i = 0; i < 50 && res?.status !== 503; i++) {
      res = await fetch(`${s.url}/tools`);
      if (res.status !== 503) await new Promise((r) => setTimeout(r, 50));
    }
    expect(res?.status).toBe(503);
    expect(await res?.json()).toMatchObject({ code: "UNDER_PRESSURE" });
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
  });
});
