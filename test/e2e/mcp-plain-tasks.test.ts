import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { McpCatalog } from "../../src/server/mcp/catalog-server.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { testTools } from "../helpers/tools.js";
import { eventually } from "../helpers/wait.js";

// The tasks extension's tasks/get and tasks/cancel, and a tools/call that creates a task, are
// answered on /mcp without a per-request SDK Server (src/server/mcp/plain/answer.ts). The
// SDK's answer is the reference: the same request with a vendor `_meta` key (which nothing
// reads, but which sends it the SDK's way) must get the same status, content type and body,
// byte for byte — errors included — on either execution store.

const root = path.resolve(import.meta.dirname, "../..");
const TASKS = "io.modelcontextprotocol/tasks";
const KEYS = { alice: "alice-key-0123456789abcdef", bob: "bob-key-0123456789abcdefgh" };
const VENDOR = { "example.com/note": "send me the SDK's way" };

interface Answer {
  status: number;
  type: string | null;
  text: string;
  /** The HTTP request's id (x-request-id), which error data carry. */
  reqId: string | null;
}
interface Options {
  key?: string;
  caps?: Record<string, unknown>;
  /** Declare the tasks extension (default true). */
  tasks?: boolean;
  sdk?: boolean;
  id?: number;
  /** The Mcp-Name header (default: what the params name). */
  mcpName?: string;
}

let srv: TestServer;
let nextId = 0;

async function post(method: string, params: Record<string, unknown>, opts: Options = {}): Promise<Answer> {
  const caps = { ...opts.caps, ...(opts.tasks === false ? {} : { extensions: { [TASKS]: {} } }) };
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": caps,
    "io.modelcontextprotocol/clientInfo": { name: "plain-tasks-test", version: "1" },
    ...(opts.sdk ? VENDOR : {}),
  };
  const name = opts.mcpName ?? params.name ?? params.taskId;
  const res = await fetch(`${srv.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${opts.key ?? KEYS.alice}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: opts.id ?? ++nextId, method, params: { ...params, _meta } }),
  });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text(), reqId: res.headers.get("x-request-id") };
}

// An answer without its HTTP request id (one per request).
const bare = ({ reqId: _r, ...a }: Answer) => a;
const body = (a: Answer) => JSON.parse(a.text) as { result?: Record<string, unknown>; error?: { code: number; data?: unknown } };

/**
 * The same request the plain way and the SDK's way, with the same JSON-RPC id: the same answer,
 * byte for byte once `normalize` has run on both; the plain one built `servers` SDK Servers (0).
 */
async function same(
  method: string,
  params: Record<string, unknown>,
  opts: Options & { servers?: number } = {},
  normalize = (s: string) => s,
) {
  const built = vi.spyOn(McpCatalog.prototype, "server");
  try {
    const id = ++nextId;
    const plain = await post(method, params, { ...opts, id });
    expect(built).toHaveBeenCalledTimes(opts.servers ?? 0);
    const sdk = await post(method, params, { ...opts, id, sdk: true });
    expect(built).toHaveBeenCalledTimes((opts.servers ?? 0) + 1);
    // Each answer's own HTTP request id aside.
    const norm = (a: Answer) => ({ ...a, reqId: undefined, text: normalize(a.text.replaceAll(a.reqId ?? "\u0000", "REQ")) });
    expect(norm(plain)).toEqual(norm(sdk));
    return plain;
  } finally {
    built.mockRestore();
  }
}

// Two tasks made by two calls differ in their ids and times only.
const created = (s: string) =>
  s
    .replace(/"taskId":"[0-9a-f]{32}"/, '"taskId":"ID"')
    .replace(/"(createdAt|lastUpdatedAt)":"[^"]+"/g, '"$1":"T"')
    .replace(/"requestState":"[^"]+"/g, '"requestState":"SEALED"');

async function newTask(name: string, args: Record<string, unknown>): Promise<string> {
  const r = body(await post("tools/call", { name, arguments: args }));
  expect(r.result).toMatchObject({ resultType: "task" });
  return r.result?.taskId as string;
}

async function settled(taskId: string): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> = {};
  await eventually(
    async () => {
      last = body(await post("tasks/get", { taskId })).result ?? {};
      return last.status !== "working";
    },
    { timeoutMs: 10_000, everyMs: 20 },
  );
  return last;
}

describe.each(["memory", "redis"] as const)("/mcp plain tasks, %s store", (store) => {
  let redis: RedisServer | undefined;

  beforeAll(async () => {
    redis = store === "redis" ? await startRedis() : undefined;
    srv = await startServer({
      tools: testTools(),
      config: {
        ...(redis ? { redis: { url: redis.url } } : {}),
        auth: {
          apiKeys: [
            { id: "alice", key: KEYS.alice },
            { id: "bob", key: KEYS.bob },
          ],
        },
        plugins: [path.join(root, "test/fixtures/plugins/conformance-tasks.mjs")],
        server: {
          mcp: {
            enabled: true,
            path: "/mcp",
            pageSize: 100,
            taskAfterMs: 200,
            taskSupport: { echo: "required", divide: "required", explode: "required", slow: "optional", confirm: "required" },
          },
        },
      },
    });
  });
  afterAll(async () => {
    await srv?.close();
    await redis?.stop();
  });

  it("tasks/get of a working, a completed (isError too), a failed and an input_required task: the SDK's answer", async () => {
    const working = await newTask("slow", { ms: 60_000 });
    expect(body(await same("tasks/get", { taskId: working })).result).toMatchObject({ status: "working", resultType: "complete" });

    const done = await newTask("echo", { text: "hi" });
    expect(await settled(done)).toMatchObject({ status: "completed" });
    const completed = body(await same("tasks/get", { taskId: done })).result;
    expect(completed).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "hi" }], resultType: "complete" } });
    expect(completed?._meta).toHaveProperty(["io.modelcontextprotocol/serverInfo", "name"], "toolnexus");

    const toolError = await newTask("divide", { a: 1, b: 0 });
    await settled(toolError);
    expect(body(await same("tasks/get", { taskId: toolError })).result).toMatchObject({ result: { isError: true } });

    const crashed = await newTask("explode", {});
    await settled(crashed);
    expect(body(await same("tasks/get", { taskId: crashed })).result).toMatchObject({
      status: "failed",
      error: { data: { code: "TOOL_FAILED" } },
    });

    const asking = await newTask("confirm", { what: "x" });
    await settled(asking);
    expect(body(await same("tasks/get", { taskId: asking })).result).toMatchObject({ status: "input_required", inputRequests: {} });
    await post("tasks/cancel", { taskId: working });
    await post("tasks/cancel", { taskId: asking });
  });

  it("an unknown, a malformed and another caller's task id: the SDK's -32602, alike", async () => {
    const alices = await newTask("echo", { text: "mine" });
    for (const taskId of ["0".repeat(32), "not-a-task", alices]) {
      const a = await same("tasks/get", { taskId }, { key: KEYS.bob });
      expect(a.status).toBe(200);
      expect(body(a).error).toMatchObject({ code: -32602 });
      expect(body(await same("tasks/cancel", { taskId }, { key: KEYS.bob })).error).toMatchObject({ code: -32602 });
    }
    expect(body(await post("tasks/get", { taskId: alices })).result).toMatchObject({ taskId: alices });
  });

  it("tasks/cancel of a working task and of a terminal one: the SDK's empty ack; the task is cancelled", async () => {
    const [one, two] = [await newTask("slow", { ms: 60_000 }), await newTask("slow", { ms: 60_000 })];
    const id = ++nextId;
    const plain = await post("tasks/cancel", { taskId: one }, { id });
    const sdk = await post("tasks/cancel", { taskId: two }, { id, sdk: true });
    expect(bare(plain)).toEqual(bare(sdk));
    expect(body(plain).result).toMatchObject({ resultType: "complete" });
    expect(await settled(one)).toMatchObject({ status: "cancelled" });
    await same("tasks/cancel", { taskId: one });
    await same("tasks/get", { taskId: one });
  });

  it("tasks/update: the SDK's answers to another caller, a bad or missing answer, dropped entries, a working and a terminal task", async () => {
    const waiting = await newTask("confirm", { what: "a" });
    expect(await settled(waiting)).toMatchObject({ status: "input_required", inputRequests: { input: {} } });
    const accept = { input: { action: "accept", content: { confirm: true } } };
    expect(body(await same("tasks/update", { taskId: waiting, inputResponses: accept }, { key: KEYS.bob })).error).toMatchObject({
      code: -32602,
    });
    const bad = await same("tasks/update", { taskId: waiting, inputResponses: { input: { action: "maybe" } } });
    expect(body(bad).error).toMatchObject({ code: -32602, data: { code: "INVALID_REQUEST" } });
    expect(body(await same("tasks/update", { taskId: waiting })).error).toMatchObject({ code: -32602 });
    // Entries the SDK drops (a request's or a result's shape) reach nobody: an ack, still waiting.
    await same("tasks/update", { taskId: waiting, inputResponses: { input: { method: "elicitation/create" }, other: 1 } });
    const working = await newTask("slow", { ms: 60_000 });
    expect(body(await same("tasks/update", { taskId: working, inputResponses: accept })).result).toMatchObject({ resultType: "complete" });
    await post("tasks/cancel", { taskId: working });
    const done = await newTask("echo", { text: "x" });
    await settled(done);
    expect(body(await same("tasks/update", { taskId: done, inputResponses: accept })).error).toMatchObject({ code: -32602 });
    expect(await settled(waiting)).toMatchObject({ status: "input_required" });
    await post("tasks/cancel", { taskId: waiting });
  });

  it("tasks/update with the answer: the SDK's ack, and the task completes with it", async () => {
    const [one, two] = [await newTask("confirm", { what: "a" }), await newTask("confirm", { what: "b" })];
    await settled(one);
    await settled(two);
    const accept = { input: { action: "accept", content: { confirm: true } } };
    const id = ++nextId;
    const built = vi.spyOn(McpCatalog.prototype, "server");
    const plain = await post("tasks/update", { taskId: one, inputResponses: accept }, { id });
    expect(built).not.toHaveBeenCalled();
    built.mockRestore();
    expect(bare(plain)).toEqual(bare(await post("tasks/update", { taskId: two, inputResponses: accept }, { id, sdk: true })));
    expect(await settled(one)).toMatchObject({
      status: "completed",
      result: { content: [{ text: expect.stringMatching(/^confirmed a/) }] },
    });
    expect(await settled(two)).toMatchObject({
      status: "completed",
      result: { content: [{ text: expect.stringMatching(/^confirmed b/) }] },
    });
  });

  it("a client without the extension, or a request naming another task in Mcp-Name, gets the SDK's answer", async () => {
    const taskId = await newTask("echo", { text: "x" });
    const refused = await same("tasks/get", { taskId }, { tasks: false, servers: 1 });
    expect(refused.status).toBe(400);
    expect(body(refused).error).toMatchObject({ code: -32021 });
    // Refused before any Server is built: the two answers alike.
    const other = "0".repeat(32);
    const id = ++nextId;
    const mismatch = await post("tasks/get", { taskId }, { id, mcpName: other });
    expect(bare(mismatch)).toEqual(bare(await post("tasks/get", { taskId }, { id, mcpName: other, sdk: true })));
    expect(mismatch.status).toBe(400);
    expect(body(mismatch).error).toMatchObject({ code: -32020 });
  });

  it("a tools/call that becomes a task (required, or optional and slower than taskAfterMs): the SDK's task result", async () => {
    const required = await same("tools/call", { name: "echo", arguments: { text: "t" } }, {}, created);
    expect(body(required).result).toMatchObject({ content: [], resultType: "task", status: "working" });
    const optional = await same("tools/call", { name: "slow", arguments: { ms: 1000 } }, {}, created);
    expect(body(optional).result).toMatchObject({ resultType: "task" });
    await settled(body(optional).result?.taskId as string);
  });

  it("a task call that settles within taskAfterMs, fails its checks, or asks for input first: the SDK's answer", async () => {
    expect(body(await same("tools/call", { name: "slow", arguments: { ms: 5 } })).result).toMatchObject({
      content: [{ type: "text", text: "done" }],
      resultType: "complete",
    });
    expect(body(await same("tools/call", { name: "echo", arguments: { text: 5 } })).result).toMatchObject({ isError: true });
    // Without the extension: a plain call of an optional tool, the SDK's -32021 for a required one.
    await same("tools/call", { name: "slow", arguments: { ms: 5 } }, { tasks: false });
    const refused = await same("tools/call", { name: "echo", arguments: { text: "t" } }, { tasks: false, servers: 1 });
    expect(body(refused).error).toMatchObject({ code: -32021 });
    // An optional task that asks within taskAfterMs, from a client that can answer: input_required, answered by the SDK.
    const caps = { elicitation: { form: {} } };
    const asked = await same("tools/call", { name: "test_tool_with_task", arguments: {} }, { caps, servers: 1 }, created);
    expect(body(asked).result).toMatchObject({ resultType: "input_required" });
  });
});
