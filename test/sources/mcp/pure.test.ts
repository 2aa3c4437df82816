import { describe, expect, it } from "vitest";
import { backoffDelay } from "../../../src/sources/mcp/connection/backoff.js";
import { callOptions } from "../../../src/sources/mcp/call/options.js";
import { mapCallResult } from "../../../src/sources/mcp/call/map-result.js";
import { mcpToolName, toTool } from "../../../src/sources/mcp/mcp-tool.js";
import { negotiationOptions } from "../../../src/sources/mcp/config/negotiation.js";
import { redact } from "../../../src/sources/mcp/redact.js";
import { filterTools } from "../../../src/sources/mcp/tool-filter.js";

describe("filterTools", () => {
  const tools = [{ name: "a" }, { name: "b" }, { name: "c" }];
  it("keeps all without a map, allowlists with any true, drop-lists with only false", () => {
    expect(filterTools(tools, undefined).kept).toHaveLength(3);
    expect(filterTools(tools, {}).kept).toHaveLength(3);
    expect(filterTools(tools, { a: true, b: false }).kept.map((t) => t.name)).toEqual(["a"]);
    expect(filterTools(tools, { b: false }).kept.map((t) => t.name)).toEqual(["a", "c"]);
  });
  it("reports unknown names", () => {
    expect(filterTools(tools, { zz: true, a: true }).unknown).toEqual(["zz"]);
  });
});

describe("mapCallResult", () => {
  it("joins non-blank text of an isError result with a blank line", () => {
    const r = mapCallResult(
      {
        isError: true,
        content: [
          { type: "text", text: "one" },
          { type: "text", text: " " },
          { type: "text", text: "two" },
        ],
      },
      "s",
      "t",
    );
    expect(r).toMatchObject({ output: "one\n\ntwo", isError: true });
    expect(mapCallResult({ isError: true, content: [] }, "s", "t").output).toBe("MCP tool returned an error");
  });
  it("prefers structuredContent, else joins text parts with newlines", () => {
    expect(mapCallResult({ content: [{ type: "text", text: "ignored" }], structuredContent: { a: 1 } }, "s", "t").output).toBe('{"a":1}');
    expect(mapCallResult({ content: [{ type: "text", text: "x" }] }, "s", "t")).toEqual({
      output: "x",
      isError: false,
      metadata: { server: "s", tool: "t" },
    });
    expect(
      mapCallResult(
        {
          content: [
            { type: "text", text: "x" },
            { type: "text", text: "y" },
          ],
        },
        "s",
        "t",
      ).output,
    ).toBe("x\ny");
  });
  it("keeps the parts whenever output alone cannot rebuild them, and structuredContent even on an error", () => {
    const two = [
      { type: "text" as const, text: "x" },
      { type: "text" as const, text: "y" },
    ];
    expect(mapCallResult({ content: two }, "s", "t").metadata?.content).toEqual(two);
    const annotated = [{ type: "text" as const, text: "x", annotations: { audience: ["user" as const] } }];
    expect(mapCallResult({ content: annotated }, "s", "t").metadata?.content).toEqual(annotated);
    const beside = [{ type: "text" as const, text: "21 and sunny" }];
    expect(mapCallResult({ content: beside, structuredContent: { temp: 21 } }, "s", "t").metadata).toEqual({
      server: "s",
      tool: "t",
      content: beside,
      structuredContent: { temp: 21 },
    });
    expect(
      mapCallResult({ content: beside, structuredContent: { why: "x" }, isError: true }, "s", "t").metadata?.structuredContent,
    ).toEqual({ why: "x" });
  });
  it("keeps every part in metadata.content when any is not text", () => {
    const content = [
      { type: "text" as const, text: "see" },
      { type: "audio" as const, data: "AAAA", mimeType: "audio/wav" },
      { type: "resource_link" as const, uri: "file:///x", name: "x" },
      { type: "resource" as const, resource: { uri: "file:///y", text: "y" } },
    ];
    const r = mapCallResult({ content }, "s", "t");
    expect(r.output).toBe("see");
    expect(r.metadata?.content).toEqual(content);
  });
});

describe("tool conversion", () => {
  it("names tools sanitize(server)_sanitize(tool) and always has an object schema", async () => {
    expect(mcpToolName("my.server", "do it/now")).toBe("my_server_do_it_now");
    expect(mcpToolName(false, "do it/now")).toBe("do_it_now");
    const t = toTool("s", { name: "x", inputSchema: { type: "object" } }, async (name, args) => ({
      output: `${name}:${JSON.stringify(args)}`,
      isError: false,
    }));
    expect(t).toMatchObject({ name: "s_x", description: "", source: "mcp", inputSchema: { type: "object", properties: {} } });
    expect((await t.execute({ a: 1 })).output).toBe('x:{"a":1}');
  });
});

describe("callOptions", () => {
  it("never cuts a call shorter than ctx.timeout, and uses the SDK default without one", () => {
    expect(callOptions({ timeout: 120_000 }).timeout).toBeGreaterThan(120_000);
    expect(callOptions({}).timeout).toBe(60_000);
  });
  it("passes the signal", () => {
    const ac = new AbortController();
    expect(callOptions({ signal: ac.signal }).signal).toBe(ac.signal);
  });
  it("leaves the deadline of a call that may be held to its signal: the SDK's timer cannot pause while the caller answers", () => {
    const ac = new AbortController();
    const ask = () => Promise.resolve({});
    expect(callOptions({ timeout: 100, signal: ac.signal, onInputRequest: ask }).timeout).toBe(2_147_483_647);
    expect(callOptions({ timeout: 100, onInputRequest: ask }).timeout).toBeLessThan(2_000);
  });
});

describe("backoffDelay", () => {
  it("grows exponentially, caps, and jitters between half and all of the step", () => {
    const opts = { baseMs: 100, maxMs: 1000 };
    expect(backoffDelay(0, opts, () => 0)).toBe(50);
    expect(backoffDelay(0, opts, () => 1)).toBe(100);
    expect(backoffDelay(3, opts, () => 1)).toBe(800);
    expect(backoffDelay(10, opts, () => 1)).toBe(1000);
    expect(backoffDelay(10, opts, () => 0)).toBe(500);
  });
});

describe("redact", () => {
  it("scrubs every secret of useful length", () => {
    expect(redact("token abcdef123 and abc", ["abcdef123", "abc"])).toBe("token [redacted] and abc");
  });
});

describe("negotiationOptions", () => {
  it("probes unless pinned; a 2026 pin has no fallback, a 2025 pin offers only itself; SSE always initializes", () => {
    expect(negotiationOptions(undefined, "streamable-http")).toEqual({ versionNegotiation: { mode: "auto" } });
    expect(negotiationOptions(undefined, "stdio")).toEqual({ versionNegotiation: { mode: "auto" } });
    expect(negotiationOptions(undefined, "sse")).toEqual({});
    expect(negotiationOptions("2026-07-28", "stdio")).toEqual({ versionNegotiation: { mode: { pin: "2026-07-28" } } });
    expect(negotiationOptions("2025-06-18", "streamable-http")).toEqual({ supportedProtocolVersions: ["2025-06-18"] });
  });
});
