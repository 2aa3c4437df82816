import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startV2HttpServer, type V2HttpServer } from "../fixtures/mcp/v2-http-server.js";
// @ts-expect-error -- a plain-JS fixture module
import { taskEvents } from "../fixtures/mcp/v2-task-tools.mjs";
import { startServer, type TestServer } from "../helpers/server.js";
import { eventually } from "../helpers/wait.js";

const STDIO = fileURLToPath(new URL("../fixtures/mcp/v2-task-stdio-server.mjs", import.meta.url));
type Json = Record<string, unknown>;

const post = (url: string, body: Json, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body), signal });

/** One 2026-07-28 JSON-RPC request to `/mcp` declaring the tasks extension; the response body. */
async function rpc(url: string, method: string, params: Json): Promise<Json> {
  const name = params.name ?? params.taskId;
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "upstream-tasks-2026-test", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
  const res = await post(
    `${url}/mcp`,
    { jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } },
    {
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
    },
  );
  return ((await res.json()) as { result: Json }).result;
}

/** The `event:`/`data:` pairs of a finished SSE body. */
function sse(text: string): { event: string; data: Json }[] {
  return text
    .split("\n\n")
    .map((block) => ({
      event: /^event: (.*)$/m.exec(block)?.[1] ?? "",
      data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null") as Json,
    }))
    .filter((e) => e.event !== "");
}

describe.each(["http", "stdio"] as const)("a 2026-07-28 upstream's task-only tools (tasks extension, %s) are served", (wire) => {
  let srv: TestServer;
  let upstream: V2HttpServer | undefined;
  let dir: string;
  let log: string;
  const execute = (tool: string, body: Json, headers?: Record<string, string>, signal?: AbortSignal) =>
    post(`${srv.url}/tools/tasks_${tool}/execute`, body, headers, signal);
  /** What the upstream recorded: task cancellations and answers. */
  const upstreamEvents = async (): Promise<string[]> =>
    wire === "http" ? (taskEvents as string[]) : (await readFile(log, "utf8").catch(() => "")).split("\n");

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "toolnexus-tasks-2026-"));
    log = path.join(dir, "events.log");
    upstream = wire === "http" ? await startV2HttpServer("reject", 0, true) : undefined;
    const tasks = upstream ? { url: upstream.url } : { command: process.execPath, args: [STDIO], env: { V2_LOG: log } };
    srv = await startServer({ config: { server: { inputTimeoutMs: 60_000 }, mcpServers: { tasks } } });
  });
  afterAll(async () => {
    await srv?.close();
    await upstream?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("lists them, over 2026-07-28, and a plain REST call creates the task, follows it and returns its result", async () => {
    const status = (await (await fetch(`${srv.url}/status`)).json()) as { sources: Json[] };
    expect(status.sources.find((s) => s.name === "tasks")).toMatchObject({ protocolVersion: "2026-07-28" });
    const names = ((await (await fetch(`${srv.url}/tools?source=mcp`)).json()) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["tasks_report", "tasks_confirm", "tasks_broken", "tasks_quick"]));
    const res = await execute("report", { arguments: { label: "rest", steps: 3 } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ output: "rest done after 3 steps", isError: false });
  });

  it("a call the server answers at once, although the gateway opted in, is a plain result", async () => {
    const res = await execute("quick", { arguments: { label: "now" } });
    expect(await res.json()).toMatchObject({ output: "now at once", isError: false });
  });

  it("maps the task's status messages to SSE progress events", async () => {
    const res = await execute("report", { arguments: { label: "sse", steps: 4, everyMs: 120 } }, { accept: "text/event-stream" });
    const all = sse(await res.text());
    const messages = all.filter((e) => e.event === "progress").map((e) => e.data.message);
    expect(messages).toEqual(expect.arrayContaining(["sse: step 1 of 4", "sse: step 3 of 4"]));
    expect(all.at(-1)).toMatchObject({ event: "result", data: { output: "sse done after 4 steps" } });
  });

  it("a failed task is an isError result naming the upstream's reason", async () => {
    const res = await execute("broken", { arguments: {} });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { output: string; isError: boolean };
    expect(body.isError).toBe(true);
    expect(body.output).toContain("the job broke");
  });

  it("cancels the upstream task (tasks/cancel) when the REST caller goes away", async () => {
    const gone = new AbortController();
    const call = execute("report", { arguments: { label: "left", steps: 500, everyMs: 40 } }, {}, gone.signal).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    gone.abort();
    await call;
    await eventually(async () => (await upstreamEvents()).includes("cancelled left"));
  });

  it("cancels the upstream task when the call's deadline passes (504)", async () => {
    const res = await execute("report", { arguments: { label: "late", steps: 500, everyMs: 40 }, timeoutMs: 400 });
    expect(res.status).toBe(504);
    await eventually(async () => (await upstreamEvents()).includes("cancelled late"));
  });

  it("cancels the upstream task when the execution is cancelled", async () => {
    const submitted = (await (
      await post(`${srv.url}/tools/tasks_report/executions`, { arguments: { label: "abandoned", steps: 500, everyMs: 40 } })
    ).json()) as { id: string };
    await eventually(async () => {
      const e = (await (await fetch(`${srv.url}/executions/${submitted.id}`)).json()) as { progress?: unknown };
      return e.progress !== undefined;
    });
    const cancelled = (await (await post(`${srv.url}/executions/${submitted.id}/cancel`, {})).json()) as { status: string };
    expect(cancelled.status).toBe("cancelled");
    await eventually(async () => (await upstreamEvents()).includes("cancelled abandoned"));
  });

  it("a task that asks (input_required) is a REST pending; the answer goes upstream by tasks/update and the task completes", async () => {
    const first = (await (await execute("confirm", { arguments: { label: "deploy" } })).json()) as {
      isError: boolean;
      metadata: { pending: { id: string; kind: string; data: { inputRequests: Json } } };
    };
    expect(first.isError).toBe(true);
    const { pending } = first.metadata;
    expect(pending.kind).toBe("elicitation");
    expect(pending.data.inputRequests).toMatchObject({
      ok: { method: "elicitation/create", params: { message: "Go ahead with deploy?" } },
    });

    // A tampered id is refused, and nothing reaches the upstream.
    const tampered = `${pending.id.slice(0, -4)}AAAA`;
    const bad = await execute("confirm", {
      arguments: { label: "deploy" },
      answer: { id: tampered, ok: true, data: { inputResponses: {} } },
    });
    expect(bad.status).toBe(400);
    expect(await upstreamEvents()).not.toContain("answered deploy");

    const answer = { id: pending.id, ok: true, data: { inputResponses: { ok: { action: "accept", content: { go: true } } } } };
    const done = await execute("confirm", { arguments: { label: "deploy" }, answer });
    expect(done.status).toBe(200);
    expect(await done.json()).toMatchObject({ output: "deploy confirmed", isError: false });
    expect(await upstreamEvents()).toContain("answered deploy");
  });

  it("an execution holds the task's input request (input_required) and its answer goes upstream by tasks/update", async () => {
    const submitted = (await (await post(`${srv.url}/tools/tasks_confirm/executions`, { arguments: { label: "held" } })).json()) as {
      id: string;
    };
    const waiting = await eventually(async () => {
      const e = (await (await fetch(`${srv.url}/executions/${submitted.id}`)).json()) as { status: string; inputRequests?: Json };
      return e.status === "input_required" && e;
    });
    expect(waiting.inputRequests).toMatchObject({ ok: { method: "elicitation/create", params: { message: "Go ahead with held?" } } });
    const answered = await post(`${srv.url}/executions/${submitted.id}/input`, {
      inputResponses: { ok: { action: "accept", content: { go: true } } },
    });
    expect(answered.status).toBe(200);
    const done = await eventually(async () => {
      const e = (await (await fetch(`${srv.url}/executions/${submitted.id}`)).json()) as { status: string; result?: Json };
      return e.status === "succeeded" && e;
    });
    expect(done.result).toMatchObject({ output: "held confirmed", isError: false });
    expect(await upstreamEvents()).toContain("answered held");
  });

  it("a declined answer is delivered as declined", async () => {
    const first = (await (await execute("confirm", { arguments: { label: "nope" } })).json()) as { metadata: { pending: { id: string } } };
    const res = await execute("confirm", { arguments: { label: "nope" }, answer: { id: first.metadata.pending.id, ok: false } });
    expect(await res.json()).toMatchObject({ output: "nope not confirmed", isError: false });
  });

  it("on /mcp, a 2026 client's elicitation handler answers the upstream task's input request (MRTR retry, then tasks/update)", async () => {
    const client = new Client(
      { name: "upstream-tasks-2026-test", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { elicitation: { form: {} } } },
    );
    const asked: unknown[] = [];
    client.setRequestHandler("elicitation/create", (req) => {
      asked.push(req.params);
      return { action: "accept", content: { go: true } } as never;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`)));
    try {
      const r = await client.callTool({ name: "tasks_confirm", arguments: { label: "mrtr" } });
      expect(r.content).toEqual([{ type: "text", text: "mrtr confirmed" }]);
      expect(asked).toMatchObject([{ message: "Go ahead with mrtr?" }]);
    } finally {
      await client.close();
    }
  });

  it("on /mcp, a slow call becomes a task of the gateway that follows the upstream task (its tools are task-optional there)", async () => {
    const created = await rpc(srv.url, "tools/call", { name: "tasks_report", arguments: { label: "mcp", steps: 2, everyMs: 800 } });
    expect(created).toMatchObject({ resultType: "task", status: "working" });
    let task: Json = {};
    await eventually(async () => {
      task = await rpc(srv.url, "tasks/get", { taskId: created.taskId });
      return task.status !== "working";
    });
    expect(task).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "mcp done after 2 steps" }] } });
    const quick = await rpc(srv.url, "tools/call", { name: "tasks_quick", arguments: { label: "mcp" } });
    expect(quick).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "mcp at once" }] });
  });
});
