import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool } from "../../../src/core/define-tool.js";
import { pending } from "../../../src/core/input/pending.js";
import { taskSessionOn } from "../../helpers/mcp-rpc.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { testTools } from "../../helpers/tools.js";
import { eventually } from "../../helpers/wait.js";

// `discovery: search` on a bundle and on /mcp: tools/list holds search_tools and call_tool
// (and the alwaysList tools); call_tool runs the tool it names as a direct call does.

const ADMIN = "admin-key-0123456789abcdef";
const LIMITED = "limited-key-0123456789abcdef";
const TASKS = "io.modelcontextprotocol/tasks";
const MODERN = "2026-07-28";
type Json = Record<string, unknown>;

/** A toolnexus tool that asks a question, and answers what the answer said. */
const favourite = defineTool({
  name: "favourite_colour",
  description: "Asks the user for their favourite colour",
  run: (_args, ctx) => {
    if (!ctx?.answer)
      return pending({
        kind: "question",
        prompt: "Your colour?",
        data: { questions: [{ question: "Your colour?", options: ["red", "blue"] }] },
      });
    return ctx.answer.ok ? `chose ${JSON.stringify(ctx.answer.data)}` : "declined";
  },
});

/** Reports three steps of progress, then answers. */
const steps = defineTool({
  name: "count_steps",
  description: "Counts to three, reporting progress",
  run: async (_args, ctx) => {
    for (let i = 1; i <= 3; i++) ctx?.onProgress?.({ progress: i, total: 3 });
    return "counted";
  },
});

let s: TestServer;
let dir: string;
let audit: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "toolnexus-discovery-"));
  audit = path.join(dir, "audit.log");
  s = await startServer({
    tools: [...testTools(), favourite, steps],
    config: {
      bundles: {
        found: { tools: ["*"], discovery: "search", alwaysList: ["echo", "search_tools"] },
        listed: { tools: ["*"] },
      },
      auth: {
        apiKeys: [
          { id: "admin", key: ADMIN, operator: true },
          { id: "limited", key: LIMITED, tools: ["echo", "slow", "favourite_colour"] },
        ],
      },
      audit: { sink: "file", path: audit },
      server: { mcp: { enabled: true, path: "/mcp", pageSize: 100, taskAfterMs: 200, taskSupport: { slow: "optional" } } },
    },
  });
});
afterAll(async () => {
  await s?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A v2 SDK client on `endpoint` of one era, with a key; a 2026 one answers form elicitations with `colour`. */
async function connect(endpoint: string, key: string, era: "2025" | "2026", colour = "blue"): Promise<Client> {
  const client = new Client(
    { name: "discovery-test", version: "1.0.0" },
    era === "2026"
      ? { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: { form: {} } } }
      : { supportedProtocolVersions: ["2025-11-25"] },
  );
  if (era === "2026") client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: { q1: colour } }) as never);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${s.url}${endpoint}`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  return client;
}

const found = (r: unknown) =>
  ((r as { structuredContent: { tools: { name: string }[] } }).structuredContent.tools ?? []).map((t) => t.name);
const textOf = (r: unknown) => ((r as { content: { text: string }[] }).content[0] as { text: string }).text;

/** One raw 2026-07-28 JSON-RPC request to the bundle, declaring the tasks extension. */
async function rpc(method: string, params: Json, key = ADMIN): Promise<Json> {
  const name = params.name ?? params.taskId;
  const res = await fetch(`${s.url}/bundles/found/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientInfo": { name: "discovery-test", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } },
        },
      },
    }),
  });
  return (await res.json()) as Json;
}

describe("discovery: search", () => {
  it.each(["2025", "2026"] as const)(
    "a %s client lists the meta-tools, finds a tool with search_tools and runs it with call_tool",
    async (era) => {
      const client = await connect("/bundles/found/mcp", ADMIN, era);
      try {
        // The meta-tools, then the alwaysList tools (a catalog tool never takes a meta-tool's place).
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["search_tools", "call_tool", "echo"]);
        const search = await client.callTool({ name: "search_tools", arguments: { query: "divide two numbers", limit: 3 } });
        expect(found(search)[0]).toBe("divide");
        expect((search.structuredContent as { tools: Json[] }).tools[0]).toEqual({
          name: "divide",
          description: "a/b",
          inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
        });
        const r = await client.callTool({ name: "call_tool", arguments: { name: "divide", arguments: { a: 6, b: 3 } } });
        expect(r.content).toEqual([{ type: "text", text: "2" }]);
        // The tool's own error result is its own.
        expect(await client.callTool({ name: "call_tool", arguments: { name: "divide", arguments: { a: 1, b: 0 } } })).toMatchObject({
          isError: true,
          content: [{ type: "text", text: "Cannot divide by zero" }],
        });
      } finally {
        await client.close();
      }
      // The audit trail names the real tool.
      await eventually(async () => (await readFile(audit, "utf8")).includes('"tool":"divide"'), { timeoutMs: 5000, everyMs: 50 });
      const lines = (await readFile(audit, "utf8"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Json);
      expect(lines.filter((l) => l.tool === "call_tool" || l.tool === "search_tools")).toEqual([]);
    },
  );

  it("call_tool runs a tool that asks the user (an input request answered by the 2026 client)", async () => {
    const client = await connect("/bundles/found/mcp", LIMITED, "2026", "red");
    try {
      expect(found(await client.callTool({ name: "search_tools", arguments: { query: "favorite color" } }))).toContain("favourite_colour");
      const r = await client.callTool({ name: "call_tool", arguments: { name: "favourite_colour", arguments: {} } });
      expect(r.content).toEqual([{ type: "text", text: 'chose {"q1":"red"}' }]);
    } finally {
      await client.close();
    }
  });

  it("call_tool passes the tool's progress on to the caller's progressToken", async () => {
    const client = await connect("/bundles/found/mcp", ADMIN, "2026");
    try {
      const seen: { progress: number; total?: number }[] = [];
      const r = await client.callTool(
        { name: "call_tool", arguments: { name: "count_steps", arguments: {} } },
        { onprogress: (p: { progress: number; total?: number }) => seen.push(p) },
      );
      expect(r.content).toEqual([{ type: "text", text: "counted" }]);
      expect(seen).toEqual([
        { progress: 1, total: 3 },
        { progress: 2, total: 3 },
        { progress: 3, total: 3 },
      ]);
    } finally {
      await client.close();
    }
  });

  it("a v2 SDK tasks session runs call_tool of a task tool as that tool's task", async () => {
    const session = await taskSessionOn(`${s.url}/bundles/found/mcp`, { authorization: `Bearer ${ADMIN}` });
    try {
      const execution = await session.callTool("call_tool", { name: "slow", arguments: { ms: 400 } });
      expect(execution.kind).toBe("task");
      const { outcome } = await execution.settle();
      expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: "text", text: "done" }] });
    } finally {
      await session.close();
    }
  });

  it("call_tool of a tool with task support becomes that tool's task", async () => {
    const created = (await rpc("tools/call", { name: "call_tool", arguments: { name: "slow", arguments: { ms: 400 } } })).result as Json;
    expect(created).toMatchObject({ resultType: "task", status: "working" });
    let last: Json = {};
    await eventually(
      async () => {
        last = (await rpc("tasks/get", { taskId: created.taskId })).result as Json;
        return last.status !== "working";
      },
      { timeoutMs: 10_000, everyMs: 50 },
    );
    expect(last).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "done" }] } });
  });

  it("call_tool of a tool outside the caller's policy is refused exactly as a direct call is", async () => {
    const client = await connect("/bundles/found/mcp", LIMITED, "2026");
    try {
      // Not found by searching either.
      expect(found(await client.callTool({ name: "search_tools", arguments: { query: "divide two numbers", limit: 50 } }))).not.toContain(
        "divide",
      );
      const direct = await client.callTool({ name: "divide", arguments: { a: 1, b: 2 } }).catch((e: unknown) => e);
      const through = await client
        .callTool({ name: "call_tool", arguments: { name: "divide", arguments: { a: 1, b: 2 } } })
        .catch((e: unknown) => e);
      expect(direct).toMatchObject({ code: -32602, data: { code: "FORBIDDEN" } });
      const { requestId: _a, ...d } = (direct as { data: Json }).data;
      const { requestId: _b, ...t } = (through as { data: Json }).data;
      expect({ message: (through as Error).message, code: (through as { code: number }).code, data: t }).toEqual({
        message: (direct as Error).message,
        code: (direct as { code: number }).code,
        data: d,
      });
    } finally {
      await client.close();
    }
  });

  it("bad input to the meta-tools gets a clear tool error or the direct call's error, and nothing outside the view", async () => {
    const client = await connect("/bundles/found/mcp", LIMITED, "2025");
    const call = (name: string, args: Json) => client.callTool({ name, arguments: args }).catch((e: unknown) => e);
    try {
      const toolError = async (name: string, args: Json, says: string) => {
        const r = await call(name, args);
        expect(r, JSON.stringify(args)).toMatchObject({ isError: true });
        expect(textOf(r)).toContain(says);
      };
      await toolError("call_tool", { name: "call_tool", arguments: { name: "echo" } }, 'call_tool runs catalog tools, not "call_tool"');
      await toolError("call_tool", { name: "search_tools", arguments: { query: "x" } }, "call search_tools directly");
      await toolError("call_tool", { name: "../echo" }, "is not a tool name");
      await toolError("call_tool", { name: "ech*" }, "is not a tool name");
      await toolError("call_tool", { name: "echo", arguments: "text" }, '"arguments" must be an object');
      await toolError("call_tool", { name: "echo", text: "hi" }, 'call_tool takes only "name" and "arguments"');
      await toolError("call_tool", {}, 'call_tool needs "name"');
      // Arguments meant for another tool: the tool's own schema check, naming the pointers.
      await toolError("call_tool", { name: "echo", arguments: { a: 1, b: 2 } }, "/text");
      await toolError("search_tools", { query: "x".repeat(10_000) }, "at most 500");
      await toolError("search_tools", { query: "  " }, 'search_tools needs "query"');
      await toolError("search_tools", { query: "echo", limit: 1000 }, '"limit" must be an integer from 1 to 50');
      expect(found(await call("search_tools", { query: "(.*)[a-z]+ ~2 AND field:value *" }))).toEqual(expect.any(Array));
      // A prefix of a real tool's name is no tool: the direct call's error.
      expect(await call("call_tool", { name: "ech", arguments: {} })).toMatchObject({ data: { code: "TOOL_NOT_FOUND" } });
      expect(await call("call_tool", { name: "echo", arguments: { text: "fine" } })).toMatchObject({ content: [{ text: "fine" }] });
    } finally {
      await client.close();
    }
  });

  it("a bundle without discovery, and /mcp, still list every tool", async () => {
    const client = await connect("/bundles/listed/mcp", LIMITED, "2026");
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["echo", "favourite_colour", "slow"]);
      // call_tool is no tool there.
      await expect(client.callTool({ name: "call_tool", arguments: { name: "echo" } })).rejects.toMatchObject({
        data: { code: "TOOL_NOT_FOUND" },
      });
    } finally {
      await client.close();
    }
  });
});

describe("server.mcp.discovery: search", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({
      tools: testTools(),
      config: { server: { mcp: { enabled: true, path: "/mcp", pageSize: 100, taskAfterMs: 1000, discovery: "search" } } },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(["2025", "2026"] as const)("/mcp (%s) lists search_tools and call_tool, and runs a tool found", async (era) => {
    const client = new Client(
      { name: "discovery-test", version: "1.0.0" },
      era === "2026" ? { versionNegotiation: { mode: { pin: MODERN } } } : { supportedProtocolVersions: ["2025-11-25"] },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
    try {
      expect((await client.listTools()).tools.map((x) => x.name)).toEqual(["search_tools", "call_tool"]);
      expect(found(await client.callTool({ name: "search_tools", arguments: { query: "echo some text" } }))[0]).toBe("echo");
      expect(await client.callTool({ name: "call_tool", arguments: { name: "echo", arguments: { text: "via /mcp" } } })).toMatchObject({
        content: [{ type: "text", text: "via /mcp" }],
      });
    } finally {
      await client.close();
    }
  });
});
