import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { McpCatalog } from "../../src/server/mcp/catalog-server.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { testTools } from "../helpers/tools.js";

// A plain tools/call or tools/list on /mcp is answered without a per-request SDK Server
// (src/server/mcp/plain/answer.ts). The SDK's answer is the reference: the same request with a
// vendor `_meta` key (which nothing reads, but which sends it the SDK's way) must get the same
// answer, status and log line.

type Era = "2025" | "2026";
const ENVELOPE = (caps: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": caps,
  "io.modelcontextprotocol/clientInfo": { name: "plain-test", version: "1" },
});
const VENDOR = { "example.com/note": "send me the SDK's way" };

interface Answer {
  status: number;
  type: string | null;
  body: Record<string, unknown>;
  reqId: string | null;
}

let srv: TestServer;
let id = 0;

async function post(
  era: Era,
  method: string,
  params: Record<string, unknown>,
  opts: { sdk?: boolean; caps?: Record<string, unknown> } = {},
) {
  const meta = { ...(era === "2026" ? ENVELOPE(opts.caps) : {}), ...(opts.sdk ? VENDOR : {}) };
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  if (era === "2025") headers["mcp-protocol-version"] = "2025-06-18";
  else {
    headers["mcp-protocol-version"] = "2026-07-28";
    headers["mcp-method"] = method;
    if (typeof params.name === "string") headers["mcp-name"] = params.name;
  }
  const body = { jsonrpc: "2.0", id: ++id, method, params: { ...params, ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) } };
  const res = await fetch(`${srv.url}/mcp`, { method: "POST", headers, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  return { status: res.status, type: res.headers.get("content-type"), body: json, reqId: res.headers.get("x-request-id") } satisfies Answer;
}

// What differs between two answers to two requests: the ids, and a sealed requestState (random IV).
function normalized(a: Answer): unknown {
  return JSON.parse(
    JSON.stringify({ ...a, reqId: undefined, body: { ...a.body, id: undefined } })
      .replaceAll(a.reqId ?? "\u0000", "REQ")
      .replace(/"requestState":"[^"]+"/g, '"requestState":"SEALED"'),
  );
}

const callLine = (reqId: string | null) => {
  const line = srv.logs.find((l) => l.reqId === reqId && l.msg === "tool call");
  if (!line) return undefined;
  const { reqId: _r, time: _t, durationMs: _d, ...rest } = line;
  return rest;
};

/** The same request the plain way and the SDK's way: the same answer; the plain one built no SDK Server. */
async function same(
  era: Era,
  method: string,
  params: Record<string, unknown>,
  opts: { caps?: Record<string, unknown>; servers?: number } = {},
) {
  const built = vi.spyOn(McpCatalog.prototype, "server");
  try {
    const plain = await post(era, method, params, opts);
    expect(built).toHaveBeenCalledTimes(opts.servers ?? 0);
    const sdk = await post(era, method, params, { ...opts, sdk: true });
    expect(built).toHaveBeenCalledTimes((opts.servers ?? 0) + 1);
    expect(normalized(plain)).toEqual(normalized(sdk));
    expect(callLine(plain.reqId)).toEqual(callLine(sdk.reqId));
    return plain;
  } finally {
    built.mockRestore();
  }
}

beforeAll(async () => {
  srv = await startServer({
    tools: testTools(),
    config: { server: { mcp: { enabled: true, path: "/mcp", pageSize: 2, taskAfterMs: 1000 } } },
  });
});
afterAll(() => srv.close());

describe.each(["2025", "2026"] as const)("/mcp plain path, %s era", (era) => {
  it("answers a tools/call as the SDK does, without building an SDK Server", async () => {
    const a = await same(era, "tools/call", { name: "echo", arguments: { text: "hi" } });
    expect(a.status).toBe(200);
    expect((a.body.result as { content: unknown }).content).toEqual([{ type: "text", text: "hi" }]);
    expect(callLine(a.reqId)).toMatchObject({ tool: "echo", transport: "mcp", outcome: "ok" });
  });

  it("answers arguments that fail the schema, an unknown tool and a failing tool as the SDK does", async () => {
    expect((await same(era, "tools/call", { name: "echo", arguments: { text: 5 } })).body.result).toMatchObject({ isError: true });
    expect((await same(era, "tools/call", { name: "nope", arguments: {} })).body.error).toMatchObject({ data: { code: "TOOL_NOT_FOUND" } });
    expect((await same(era, "tools/call", { name: "explode" })).body.error).toMatchObject({ data: { code: "TOOL_FAILED" } });
  });

  it("answers tools/list and its pages as the SDK does; a bad cursor is the SDK's", async () => {
    const first = await same(era, "tools/list", {});
    const cursor = (first.body.result as { nextCursor?: string }).nextCursor;
    expect(cursor).toBeDefined();
    await same(era, "tools/list", { cursor });
    await same(era, "tools/list", { cursor: "not-one" }, { servers: 1 });
  });

  it("gives a pending result as the SDK does", async () => {
    const a = await same(era, "tools/call", { name: "confirm", arguments: { what: "x" } });
    expect((a.body.result as { _meta?: Record<string, unknown> })._meta?.["toolnexus/pending"]).toMatchObject({ kind: "approval" });
  });
});

describe("/mcp plain path, an answer only the SDK gives", () => {
  it("runs the tool once and lets the SDK answer its input_required result", async () => {
    const caps = { elicitation: { form: {} } };
    const a = await same("2026", "tools/call", { name: "confirm", arguments: { what: "y" } }, { caps, servers: 1 });
    expect(a.body.result).toMatchObject({ resultType: "input_required", requestState: expect.any(String) });
    expect(srv.logs.filter((l) => l.reqId === a.reqId && l.msg === "tool call")).toHaveLength(1);
  });
});
