import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeTool } from "../helpers/execute.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { streamExecute, type SseEvent } from "../helpers/sse.js";
import { eventually } from "../helpers/wait.js";
import { groupGone, marker as commandMarker, pgidOf, waitGroupGone } from "../sources/builtins/process-check.js";
import { faultServer, fixtureLog, readEvents } from "../sources/mcp/fixture.js";
import { startAgent, type AgentServer } from "../fixtures/a2a/agent-server.js";

const EVERYTHING = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const PLUGIN = fileURLToPath(new URL("../fixtures/plugins/progress.mjs", import.meta.url));

let srv: TestServer;
let log: string;
let dir: string;
let agent: AgentServer;

beforeAll(async () => {
  ({ log } = await fixtureLog());
  dir = await mkdtemp(path.join(tmpdir(), "tn-sse-"));
  agent = await startAgent({ name: "Progress Agent" });
  srv = await startServer({
    config: {
      server: { heartbeatMs: 100 },
      mcpServers: {
        everything: { command: [process.execPath, EVERYTHING, "stdio"] },
        fx: faultServer({ FIXTURE_LOG: log }),
      },
      plugins: [PLUGIN],
      agents: { progress: { card: agent.cardUrl, pollEvery: 20 } },
      builtins: { enabled: true, workspace: dir, tools: { bash: true } },
    },
  });
});
afterAll(async () => {
  await srv?.close();
  await agent?.close();
});

const names = (events: SseEvent[]) => events.map((e) => e.event);
const callLine = (tool: string) => srv.logs.find((l) => l.msg === "tool call" && l.tool === tool);

describe("streaming execute (Accept: text/event-stream) over a real socket", () => {
  it("relays an MCP server's notifications/progress, then the result last", async () => {
    const call = await streamExecute(srv.url, "everything_trigger-long-running-operation", { arguments: { duration: 0.5, steps: 5 } });
    expect(call.res.status).toBe(200);
    expect(call.res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(call.res.headers.get("x-request-id")).toBeTruthy();
    const events = await call.done;
    expect(names(events)).toEqual(["progress", "progress", "progress", "progress", "progress", "result"]);
    expect(events.slice(0, 5).map((e) => e.data)).toEqual([1, 2, 3, 4, 5].map((progress) => ({ progress, total: 5 })));
    expect(events[5]?.data).toMatchObject({ isError: false, output: expect.stringContaining("Long running operation completed") });
    expect(callLine("everything_trigger-long-running-operation")).toMatchObject({ transport: "sse", outcome: "ok", statusCode: 200 });
  });

  it("relays a plugin's ctx.onProgress reports with their messages", async () => {
    const events = await (await streamExecute(srv.url, "count", { arguments: { steps: 3 } })).done;
    expect(events).toEqual([
      { event: "progress", data: { progress: 1, total: 3, message: "step 1 of 3" } },
      { event: "progress", data: { progress: 2, total: 3, message: "step 2 of 3" } },
      { event: "progress", data: { progress: 3, total: 3, message: "step 3 of 3" } },
      { event: "result", data: { output: "counted to 3", isError: false } },
    ]);
  });

  it("relays an A2A agent's status updates seen while polling, then the result", async () => {
    const events = await (await streamExecute(srv.url, "Progress_Agent_echo", { arguments: { task: "steps 3" } })).done;
    expect(events.at(-1)).toMatchObject({ event: "result", data: { output: "did 3 steps", isError: false } });
    const progress = events.slice(0, -1);
    expect(new Set(names(progress))).toEqual(new Set(["progress"]));
    expect(progress.map((e) => e.data.message).filter((m) => String(m).startsWith("working: "))).toEqual([
      "working: step 1 of 3",
      "working: step 2 of 3",
      "working: step 3 of 3",
    ]);
    expect(progress.map((e) => e.data.progress)).toEqual(progress.map((_e, i) => i + 1));
  });

  it("sends a `: ping` comment every server.heartbeatMs while the call is quiet", async () => {
    const call = await streamExecute(srv.url, "count", { arguments: { steps: 1, everyMs: 450 } });
    await call.done;
    expect(call.comments).toContain("ping");
    expect(names(call.events)).toEqual(["progress", "result"]);
  });

  it("an isError result is the `result` event", async () => {
    const events = await (await streamExecute(srv.url, "refuse")).done;
    expect(events).toEqual([
      { event: "progress", data: { progress: 1, total: 2 } },
      { event: "result", data: { output: "refused on purpose", isError: true } },
    ]);
  });

  it("a timeout ends the stream with an `error` event TOOL_TIMEOUT, and the tool's signal aborts", async () => {
    const marker = path.join(dir, "timeout.jsonl");
    const call = await streamExecute(srv.url, "hold", { arguments: { marker }, timeoutMs: 300 }, { "x-request-id": "sse-timeout-1" });
    const events = await call.done;
    expect(names(events)).toEqual(["progress", "error"]);
    expect(events[1]?.data).toEqual({
      type: "https://toolnexus.dev/problems/tool-timeout",
      title: expect.any(String) as string,
      status: 504,
      detail: "The tool did not finish within 300 ms",
      code: "TOOL_TIMEOUT",
      requestId: "sse-timeout-1",
    });
    expect(await readFile(marker, "utf8")).toBe('{"code":"TOOL_TIMEOUT"}\n');
  });

  it("a tool that throws ends the stream with an `error` event TOOL_FAILED that does not leak the throw", async () => {
    const events = await (await streamExecute(srv.url, "crash")).done;
    expect(names(events)).toEqual(["progress", "error"]);
    expect(events[1]?.data).toMatchObject({ code: "TOOL_FAILED", status: 500 });
    expect(JSON.stringify(events)).not.toContain("exploded");
  });

  it("failures before the call starts keep their status as problem+json (404, 422)", async () => {
    const missing = await streamExecute(srv.url, "no_such_tool");
    expect(missing.res.status).toBe(404);
    expect(missing.res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await missing.res.json()).toMatchObject({ code: "TOOL_NOT_FOUND" });
    const invalid = await streamExecute(srv.url, "count", { arguments: { steps: "three" } });
    expect(invalid.res.status).toBe(422);
    expect(await invalid.res.json()).toMatchObject({ code: "INVALID_ARGUMENTS", errors: [expect.objectContaining({ pointer: "/steps" })] });
  });

  it("without Accept: text/event-stream nothing changes; a client preferring JSON gets JSON", async () => {
    const plain = await executeTool(srv.url, "count", { arguments: { steps: 1, everyMs: 1 } });
    expect(plain.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await plain.json()).toEqual({ output: "counted to 1", isError: false });
    const both = await executeTool(
      srv.url,
      "count",
      { arguments: { steps: 1, everyMs: 1 } },
      { accept: "application/json, text/event-stream" },
    );
    expect(both.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await both.json()).toEqual({ output: "counted to 1", isError: false });
  });

  it("the deployment's OpenAPI document offers the event stream on the generic and on each tool's execute", async () => {
    const doc = (await (await fetch(`${srv.url}/openapi.json`)).json()) as {
      paths: Record<string, { post: { responses: Record<string, { content: Record<string, unknown> }> } }>;
    };
    for (const p of ["/tools/{name}/execute", "/tools/count/execute"]) {
      expect(Object.keys(doc.paths[p]?.post.responses["200"]?.content ?? {}), p).toEqual(["application/json", "text/event-stream"]);
    }
  });

  it("closing the stream mid-call sends notifications/cancelled to the MCP server, logged as 499", async () => {
    const call = await streamExecute(srv.url, "fx_hang");
    expect(call.res.status).toBe(200);
    await eventually(async () => (await readEvents(log)).find((e) => e.event === "call" && e.tool === "hang"));
    const closedAt = Date.now();
    call.close();
    const cancelled = await eventually(async () => (await readEvents(log)).find((e) => e.event === "cancelled"));
    console.log(`stream closed → notifications/cancelled seen by the MCP server: ${cancelled.at - closedAt} ms`);
    expect(cancelled.reason).toMatch(/closed the event stream/);
    await eventually(() => callLine("fx_hang"));
    expect(callLine("fx_hang")).toMatchObject({ transport: "sse", outcome: "cancelled", statusCode: 499 });
  });

  it("closing the stream mid-call kills a bash built-in's process group", async () => {
    // Found from outside by a marker: in the bubblewrap sandbox `$$` is a namespace-local id.
    const m = commandMarker("stream");
    const call = await streamExecute(srv.url, "bash", { arguments: { command: `: ${m}; sleep 30 & sleep 30 & wait` } });
    expect(call.res.status).toBe(200);
    const pgid = await pgidOf(m);
    expect(groupGone(pgid)).toBe(false);
    const closedAt = performance.now();
    call.close();
    expect(await waitGroupGone(pgid)).toBe(true);
    console.log(`stream closed → bash process group gone: ${(performance.now() - closedAt).toFixed(1)} ms`);
  });

  it("closing the stream mid-call aborts a plugin's signal with CLIENT_CLOSED", async () => {
    const marker = path.join(dir, "closed.jsonl");
    const call = await streamExecute(srv.url, "hold", { arguments: { marker } });
    await call.waitFor((e) => e.event === "progress");
    call.close();
    expect(await eventually(async () => (await readFile(marker, "utf8").catch(() => "")) || undefined)).toBe('{"code":"CLIENT_CLOSED"}\n');
  });
});

describe("streaming execute during shutdown", () => {
  it("a call still running past the grace period ends its stream with an `error` event NOT_READY", async () => {
    const draining = await startServer({ config: { server: { shutdownGraceMs: 200 }, plugins: [PLUGIN] } });
    const marker = path.join(dir, "shutdown.jsonl");
    const call = await streamExecute(draining.url, "hold", { arguments: { marker } });
    await call.waitFor((e) => e.event === "progress");
    const shutdown = draining.app.toolnexus.shutdown();
    const events = await call.done;
    await shutdown;
    expect(events.at(-1)).toMatchObject({ event: "error", data: { code: "NOT_READY", status: 503 } });
    expect(await readFile(marker, "utf8")).toBe('{"code":"NOT_READY"}\n');
  });
});
