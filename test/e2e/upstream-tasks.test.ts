import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { sseEvents, tasksRpc } from "../helpers/mcp-rpc.js";
import { eventually } from "../helpers/wait.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/mcp/task-server.mjs", import.meta.url));
const EVERYTHING = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
type Json = Record<string, unknown>;

const post = (url: string, body: Json, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

const rpc = (url: string, method: string, params: Json) => tasksRpc(url, method, params, "upstream-tasks-test");

describe("upstream tools that run only as tasks (2025-11-25 core tasks) are served", () => {
  let srv: TestServer;
  let dir: string;
  let marker: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "toolnexus-upstream-tasks-"));
    marker = path.join(dir, "cancelled.txt");
    srv = await startServer({
      config: {
        mcpServers: {
          jobs: { command: process.execPath, args: [FIXTURE], env: { TASK_MARKER: marker } },
          everything: { command: process.execPath, args: [EVERYTHING, "stdio"] },
        },
      },
    });
  });
  afterAll(async () => {
    await srv?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("lists them, and a plain REST call creates the upstream task, follows it and returns its result", async () => {
    const names = ((await (await fetch(`${srv.url}/tools?source=mcp`)).json()) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["jobs_long_job", "everything_simulate-research-query"]));
    const res = await post(`${srv.url}/tools/jobs_long_job/execute`, { arguments: { label: "rest", steps: 3 } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ output: "rest done after 3 steps", isError: false });
    const research = await post(`${srv.url}/tools/everything_simulate-research-query/execute`, { arguments: { topic: "cats" } });
    expect(((await research.json()) as { output: string }).output).toContain("Research Report: cats");
  });

  it("maps the task's status messages to SSE progress events", async () => {
    const res = await post(
      `${srv.url}/tools/jobs_long_job/execute`,
      { arguments: { label: "sse", steps: 4, everyMs: 150 } },
      { accept: "text/event-stream" },
    );
    const all = sseEvents(await res.text());
    const messages = all.filter((e) => e.event === "progress").map((e) => e.data.message);
    expect(messages).toEqual(expect.arrayContaining(["sse: step 1 of 4", "sse: step 3 of 4"]));
    expect(all.at(-1)).toMatchObject({ event: "result", data: { output: "sse done after 4 steps" } });
  });

  it("cancels the upstream task when the execution is cancelled", async () => {
    const submitted = (await (
      await post(`${srv.url}/tools/jobs_long_job/executions`, { arguments: { label: "abandoned", steps: 200, everyMs: 50 } })
    ).json()) as { id: string };
    await eventually(async () => {
      const e = (await (await fetch(`${srv.url}/executions/${submitted.id}`)).json()) as { progress?: unknown };
      return e.progress !== undefined;
    });
    const cancelled = (await (await post(`${srv.url}/executions/${submitted.id}/cancel`, {})).json()) as { status: string };
    expect(cancelled.status).toBe("cancelled");
    await eventually(async () => (await readFile(marker, "utf8").catch(() => "")).includes("cancelled abandoned"));
  });

  it("on /mcp, a task of the gateway follows the upstream task: created at once, its result inline", async () => {
    const created = await rpc(srv.url, "tools/call", { name: "jobs_long_job", arguments: { label: "mcp", steps: 2 } });
    expect(created).toMatchObject({ resultType: "task", status: "working" });
    let task: Json = {};
    await eventually(async () => {
      task = await rpc(srv.url, "tasks/get", { taskId: created.taskId });
      return task.status !== "working";
    });
    expect(task).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "mcp done after 2 steps" }] } });
  });
});
