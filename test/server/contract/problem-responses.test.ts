import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool } from "../../../src/core/define-tool.js";
import { executeTool } from "../../helpers/execute.js";
import { rawRequest, type RawResponse } from "../../helpers/raw-http.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { testTools } from "../../helpers/tools.js";

const LONGEST = `t${"x".repeat(127)}`;
let s: TestServer;

beforeAll(async () => {
  const longest = defineTool({
    name: LONGEST,
    description: "a name of 128 characters",
    inputSchema: { type: "object" },
    run: () => "routed",
  });
  s = await startServer({ config: {}, tools: [...testTools(), longest] });
});
afterAll(() => s.close());

function expectProblem(status: number, code: string, contentType: string | null | undefined, body: string): Record<string, unknown> {
  expect(contentType).toMatch(/^application\/problem\+json/);
  const problem = JSON.parse(body) as Record<string, unknown>;
  expect(problem).toMatchObject({ status, code });
  for (const k of ["type", "title", "detail", "requestId"]) expect(typeof problem[k]).toBe("string");
  return problem;
}

async function fetchProblem(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  return expectProblem(status, code, res.headers.get("content-type"), await res.text());
}

function rawProblem(res: RawResponse, status: number, code: string) {
  expect(res.status).toBe(status);
  return expectProblem(status, code, res.headers["content-type"], res.body);
}

describe("every refusal is problem+json", () => {
  it("routes a tool name of 128 characters, and answers a longer path segment with 414 URI_TOO_LONG", async () => {
    const ok = await executeTool(s.url, LONGEST, {});
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ output: "routed" });
    await fetchProblem(await executeTool(s.url, "x".repeat(129), {}), 400, "INVALID_REQUEST");
    await fetchProblem(await executeTool(s.url, "x".repeat(8193), {}), 414, "URI_TOO_LONG");
  });

  it("answers bad percent-encoding in the path with 400 INVALID_REQUEST", async () => {
    await fetchProblem(await fetch(`${s.url}/tools/%zz/execute`, { method: "POST" }), 400, "INVALID_REQUEST");
  });

  it("answers a wrong method on a known path with 405 and Allow", async () => {
    const res = await fetch(`${s.url}/tools/echo/execute`, { method: "GET" });
    await fetchProblem(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toBe("POST");
    const list = await fetch(`${s.url}/tools`, { method: "DELETE" });
    await fetchProblem(list, 405, "METHOD_NOT_ALLOWED");
    expect(list.headers.get("allow")).toBe("GET, HEAD");
    await fetchProblem(await fetch(`${s.url}/nowhere`), 404, "NOT_FOUND");
  });

  it("says why a body with a __proto__ key is refused", async () => {
    const problem = await fetchProblem(await executeTool(s.url, "echo", '{"arguments":{"__proto__":{"x":1}}}'), 400, "INVALID_REQUEST");
    expect(problem.detail).toMatch(/__proto__.*prototype poisoning/);
    const ctor = await fetchProblem(
      await executeTool(s.url, "echo", '{"arguments":{"constructor":{"prototype":{}}}}'),
      400,
      "INVALID_REQUEST",
    );
    expect(ctor.detail).toMatch(/prototype poisoning/);
    const syntax = await fetchProblem(await executeTool(s.url, "echo", "{nope"), 400, "INVALID_REQUEST");
    expect(syntax.detail).toMatch(/not valid JSON/);
  });

  it("answers 415 UNSUPPORTED_MEDIA_TYPE for a body that is not JSON", async () => {
    const res = await fetch(`${s.url}/tools/echo/execute`, { method: "POST", headers: { "content-type": "text/csv" }, body: "a,b" });
    await fetchProblem(res, 415, "UNSUPPORTED_MEDIA_TYPE");
  });
});

describe("the envelope is validated strictly, without coercion", () => {
  it.each([
    ["a string timeoutMs", { timeoutMs: "100" }],
    ["a boolean timeoutMs", { timeoutMs: true }],
    ["an array timeoutMs", { timeoutMs: [500] }],
    ["a string answer.ok", { answer: { id: "confirm-x", ok: "true" } }],
    ["a numeric answer.id", { answer: { id: 1, ok: true } }],
    ["arguments that are an array", { arguments: [] }],
  ])("400 for %s", async (_what, envelope) => {
    const problem = await fetchProblem(
      await executeTool(s.url, "confirm", { arguments: { what: "x" }, ...envelope }),
      400,
      "INVALID_REQUEST",
    );
    expect(problem.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ pointer: expect.stringMatching(/^\/(timeoutMs|answer|arguments)/) })]),
    );
  });

  it("400 for a JSON null body, while no body at all is a call without arguments", async () => {
    await fetchProblem(await executeTool(s.url, "divide", "null"), 400, "INVALID_REQUEST");
    const bare = await fetch(`${s.url}/tools/divide/execute`, { method: "POST" });
    expect(bare.status).toBe(200);
  });

  it("still accepts the well-typed envelope and coerces query strings", async () => {
    const res = await executeTool(s.url, "confirm", { arguments: { what: "x" }, timeoutMs: 1000, answer: { id: "confirm-x", ok: true } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ output: "confirmed x with {}" });
  });
});

describe("Node's HTTP parser errors, over a real socket", () => {
  const cases: [string, string, number, string][] = [
    ["a NUL in a header value", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\0b\r\n\r\n", 400, "INVALID_REQUEST"],
    ["a bare LF line ending", "GET /healthz HTTP/1.1\nHost: x\n\n", 400, "INVALID_REQUEST"],
    [
      "an invalid Transfer-Encoding",
      "POST /tools/echo/execute HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
      400,
      "INVALID_REQUEST",
    ],
    [
      "two different Content-Lengths",
      "POST /tools/echo/execute HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}",
      400,
      "INVALID_REQUEST",
    ],
    ["an unknown method", "BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 501, "NOT_IMPLEMENTED"],
    ["headers beyond Node's limit", `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, 431, "HEADERS_TOO_LARGE"],
    ["a URL beyond Node's header limit", `GET /${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, "HEADERS_TOO_LARGE"],
    ["no Host header", "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n", 400, "INVALID_REQUEST"],
    [
      "an unsupported Expect",
      "POST /tools/echo/execute HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
      417,
      "EXPECTATION_FAILED",
    ],
  ];
  it.each(cases)("%s", async (_what, bytes, status, code) => {
    const res = await rawRequest(s.url, bytes);
    rawProblem(res, status, code);
    expect(res.headers["x-request-id"]).toEqual(expect.any(String));
  });

  it("logs a client's mistake below error level", () => {
    expect(s.logs.filter((l) => Number(l.level) >= 50)).toEqual([]);
  });
});
