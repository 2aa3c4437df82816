import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../../helpers/server.js";
import { testTools, type SignalLog } from "../../helpers/tools.js";
import { executeTool } from "../../helpers/execute.js";

const log: SignalLog = {};
let s: TestServer;

beforeAll(async () => {
  s = await startServer({
    config: { server: { maxConcurrent: 2, bodyLimitBytes: 4096, timeoutMs: 5000, maxTimeoutMs: 8000 } },
    tools: testTools(log),
  });
});
afterAll(() => s.close());

function execute(name: string, body: unknown, headers: Record<string, string> = {}) {
  return executeTool(s.url, name, body, headers);
}

async function problem(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ status, code, requestId: res.headers.get("x-request-id") });
  expect(typeof body.type).toBe("string");
  expect(typeof body.title).toBe("string");
  expect(typeof body.detail).toBe("string");
  return body;
}

describe("POST /tools/{name}/execute", () => {
  it("200 with the ToolResult, X-Request-Id echoed and Server-Timing set", async () => {
    const res = await execute("echo", { arguments: { text: "hi" } }, { "x-request-id": "req-123" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ output: "hi", isError: false });
    expect(res.headers.get("x-request-id")).toBe("req-123");
    expect(res.headers.get("server-timing")).toMatch(/^tool;dur=\d+\.\d$/);
  });

  it("200 for an isError outcome: the model reads it", async () => {
    const res = await execute("divide", { arguments: { a: 1, b: 0 } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ output: "Cannot divide by zero", isError: true });
  });

  it("a POST without a body is a call with no arguments", async () => {
    const res = await fetch(`${s.url}/tools/divide/execute`, { method: "POST" });
    expect(res.status).toBe(200);
  });

  it("400 INVALID_REQUEST for malformed JSON and for a bad envelope", async () => {
    await problem(await execute("echo", "{not json"), 400, "INVALID_REQUEST");
    const body = await problem(await execute("echo", { arguments: { text: "x" }, extra: 1 }), 400, "INVALID_REQUEST");
    expect(body.errors).toEqual([{ pointer: "/extra", message: "is not an envelope key; move it into arguments" }]);
    await problem(await execute("echo", { arguments: "text" }), 400, "INVALID_REQUEST");
    await problem(await execute("echo", { timeoutMs: 0 }), 400, "INVALID_REQUEST");
  });

  it("arguments sent without the wrapper: a 400 naming the stray keys and saying to wrap them", async () => {
    const body = await problem(await execute("echo", { text: "hi", "a/b": 1 }), 400, "INVALID_REQUEST");
    expect(String(body.detail)).toContain('Unknown keys "text", "a/b" in the request body');
    expect(String(body.detail)).toContain('put the tool\'s arguments inside "arguments", e.g. {"arguments": {"text": …, "a/b": …}}');
    expect((body.errors as { pointer: string }[]).map((e) => e.pointer)).toEqual(["/text", "/a~1b"]);
  });

  it("404 TOOL_NOT_FOUND for an unknown tool, 404 NOT_FOUND for an unknown route", async () => {
    await problem(await execute("nope", {}), 404, "TOOL_NOT_FOUND");
    await problem(await fetch(`${s.url}/nothing/here`), 404, "NOT_FOUND");
  });

  it("413 PAYLOAD_TOO_LARGE past server.bodyLimitBytes", async () => {
    await problem(await execute("echo", { arguments: { text: "x".repeat(5000) } }), 413, "PAYLOAD_TOO_LARGE");
  });

  it("422 INVALID_ARGUMENTS with JSON pointers", async () => {
    const body = await problem(await execute("echo", { arguments: { text: 5, more: true } }), 422, "INVALID_ARGUMENTS");
    expect(body.errors).toEqual(
      expect.arrayContaining([
        { pointer: "/text", message: "must be string" },
        { pointer: "/more", message: "is not allowed" },
      ]),
    );
  });

  it("500 TOOL_FAILED when the tool throws; the body carries no stack and no message text", async () => {
    const body = await problem(await execute("explode", {}), 500, "TOOL_FAILED");
    expect(JSON.stringify(body)).not.toMatch(/hunter2|at .*\.ts|stack/);
    const line = s.logs.find((l) => l.msg === "tool failed" && l.tool === "explode");
    expect(JSON.stringify(line)).toContain("rejected");
  });

  it("502 UPSTREAM_UNAVAILABLE when the thing behind the tool cannot be reached", async () => {
    await problem(await execute("unreachable", {}), 502, "UPSTREAM_UNAVAILABLE");
  });

  it("504 TOOL_TIMEOUT after timeoutMs, and the tool saw its signal abort", async () => {
    const started = performance.now();
    const body = await problem(await execute("slow", { arguments: { ms: 5000 }, timeoutMs: 150 }), 504, "TOOL_TIMEOUT");
    expect(body.detail).toBe("The tool did not finish within 150 ms");
    expect(log.abortedAt).toBeGreaterThan(started);
    expect(log.reason).toMatchObject({ code: "TOOL_TIMEOUT" });
  });

  it("504 even when the tool ignores its signal: the gateway answers at the deadline", async () => {
    await problem(await execute("stubborn", { timeoutMs: 100 }), 504, "TOOL_TIMEOUT");
    expect(log.stubbornDone).toBeUndefined();
    // Its work still holds a concurrency slot; let it finish so the next tests start clean.
    while (s.app.toolnexus.state.abandoned > 0) await new Promise((r) => setTimeout(r, 50));
    expect(log.stubbornDone).toBe(true);
  });

  it("caps timeoutMs at server.maxTimeoutMs", async () => {
    const res = await execute("echo", { arguments: { text: "a" }, timeoutMs: 10_000_000 });
    expect(res.status).toBe(200);
  });

  it("429 OVERLOADED with Retry-After beyond server.maxConcurrent", async () => {
    const inflight = [execute("slow", { arguments: { ms: 400 } }), execute("slow", { arguments: { ms: 400 } })];
    await new Promise((r) => setTimeout(r, 100));
    const res = await execute("echo", { arguments: { text: "x" } });
    await problem(res, 429, "OVERLOADED");
    expect(res.headers.get("retry-after")).toBe("1");
    expect((await Promise.all(inflight)).map((r) => r.status)).toEqual([200, 200]);
    expect((await execute("echo", { arguments: { text: "x" } })).status).toBe(200);
  });

  it("suspends with metadata.pending, and resumes statelessly with answer", async () => {
    const first = await execute("confirm", { arguments: { what: "deploy" } });
    expect(first.status).toBe(200);
    const suspended = (await first.json()) as { isError: boolean; metadata: { pending: { id: string; kind: string; prompt: string } } };
    expect(suspended).toEqual({
      output: "Confirm deploy?",
      isError: true,
      metadata: { pending: { id: "confirm-deploy", kind: "approval", prompt: "Confirm deploy?" } },
    });
    const resumed = await execute("confirm", {
      arguments: { what: "deploy" },
      answer: { id: suspended.metadata.pending.id, ok: true, data: { by: "ana" } },
    });
    expect(await resumed.json()).toEqual({ output: 'confirmed deploy with {"by":"ana"}', isError: false });
    const line = s.logs.find((l) => l.msg === "tool call" && l.tool === "confirm" && l.pending === true);
    expect(line).toMatchObject({ outcome: "ok" });
  });

  it("logs one line per call with tool, source, caller, outcome, status and duration", async () => {
    await execute("echo", { arguments: { text: "log me" } }, { "x-request-id": "log-line-1" });
    const lines = s.logs.filter((l) => l.reqId === "log-line-1");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: "tool call",
      tool: "echo",
      source: "native",
      caller: "anonymous",
      outcome: "ok",
      statusCode: 200,
    });
    expect(typeof lines[0]?.durationMs).toBe("number");
  });

  it("replaces an incoming X-Request-Id that JSON would escape: the line quotes ids as they are", async () => {
    const res = await execute("echo", { arguments: { text: "odd id" } }, { "x-request-id": 'odd"id\\1' });
    const id = res.headers.get("x-request-id");
    expect(id).toMatch(/^[\w.:-]+$/);
    // Every line parses (the logs helper would have thrown otherwise), and this one has the new id.
    expect(s.logs.filter((l) => l.reqId === id && l.msg === "tool call")).toHaveLength(1);
  });
});

describe("tools that ignore their signal", () => {
  it("keep their concurrency slot until they really stop", async () => {
    const t = await startServer({ config: { server: { maxConcurrent: 1 } }, tools: testTools() });
    try {
      const first = await fetch(`${t.url}/tools/stubborn/execute`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"timeoutMs":50}',
      });
      expect(first.status).toBe(504);
      const second = await fetch(`${t.url}/tools/echo/execute`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"arguments":{"text":"x"}}',
      });
      expect(second.status).toBe(429);
      expect(t.app.toolnexus.state.abandoned).toBe(1);
      while (t.app.toolnexus.state.abandoned > 0) await new Promise((r) => setTimeout(r, 50));
      const third = await fetch(`${t.url}/tools/echo/execute`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"arguments":{"text":"x"}}',
      });
      expect(third.status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe("request lines", () => {
  it("at debug, say how long each request that is not a tool call took, and its MCP method", async () => {
    await fetch(`${s.url}/tools`, { headers: { "x-request-id": "timed-1" } });
    expect(s.logs.filter((l) => l.reqId === "timed-1")).toEqual([
      expect.objectContaining({ msg: "request completed", method: "GET", url: "/tools", statusCode: 200, durationMs: expect.any(Number) }),
    ]);
    await fetch(`${s.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-method": "ping",
        "x-request-id": "timed-2",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(s.logs.find((l) => l.reqId === "timed-2" && l.msg === "request completed")).toMatchObject({
      mcpMethod: "ping",
      statusCode: 200,
    });
  });
});
