import { request } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { startAgent, type AgentServer } from "../fixtures/a2a/agent-server.js";
import { eventually } from "../helpers/wait.js";
import { executeTool } from "../helpers/execute.js";

const TOKEN = "a2a-e2e-s3cret-token";
let modern: AgentServer;
let legacy: AgentServer;
let doomed: AgentServer;
let s: TestServer;

async function closedPortUrl(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return `http://127.0.0.1:${port}/.well-known/agent-card.json`;
}

beforeAll(async () => {
  [modern, legacy, doomed] = await Promise.all([
    startAgent({ name: "Modern Agent", versions: ["1.0"] }),
    startAgent({
      name: "Legacy Agent",
      versions: ["0.3"],
      legacyCard: true,
      skills: [{ id: "echo", name: "Echo", description: "Echoes." }],
    }),
    startAgent({ name: "Doomed Agent", skills: [{ id: "echo", name: "Echo", description: "Echoes." }] }),
  ]);
  process.env.A2A_E2E_TOKEN = TOKEN;
  s = await startServer({
    config: {
      agents: {
        modern: { card: modern.cardUrl, pollEvery: 20, headers: { Authorization: "Bearer ${A2A_E2E_TOKEN}" } },
        legacy: { card: legacy.cardUrl, pollEvery: 20 },
        doomed: { card: doomed.cardUrl, pollEvery: 20 },
        broken: { card: await closedPortUrl() },
        off: { card: "http://127.0.0.1:1/card", disabled: true },
      },
    },
  });
  await doomed.close(); // loaded, then gone: its tools stay listed, calls answer 502
});
afterAll(async () => {
  await s?.close();
  await Promise.all([modern?.close(), legacy?.close()]);
  delete process.env.A2A_E2E_TOKEN;
});

async function execute(tool: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await executeTool(s.url, tool, body);
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("A2A agents over REST", () => {
  it("lists the agents' skills as a2a tools; a failing card is `failed` while the others load", async () => {
    const tools = (await (await fetch(`${s.url}/tools?source=a2a`)).json()) as { tools: { name: string; source: string }[] };
    expect(tools.tools.map((t) => t.name).sort()).toEqual([
      "Doomed_Agent_echo",
      "Legacy_Agent_echo",
      "Modern_Agent_do_work",
      "Modern_Agent_echo",
    ]);
    const status = (await (await fetch(`${s.url}/status`)).json()) as unknown;
    const text = JSON.stringify(status);
    for (const [name, state] of [
      ["modern", "connected"],
      ["legacy", "connected"],
      ["broken", "failed"],
      ["off", "disabled"],
    ]) {
      expect(text).toContain(JSON.stringify({ source: "a2a", name, state }).slice(1, -1));
    }
    expect(text).toContain("cannot be reached: connection refused (ECONNREFUSED)");
    expect(text).not.toContain(TOKEN);
  });

  it("runs a completed task on a 1.0 agent and a 0.3 agent", async () => {
    const a = await execute("Modern_Agent_echo", { arguments: { task: "echo one" } });
    expect(a).toMatchObject({
      status: 200,
      json: { output: "echo: one", isError: false, metadata: { agent: "Modern Agent", state: "completed" } },
    });
    const b = await execute("Legacy_Agent_echo", { arguments: { task: "echo two" } });
    expect(b).toMatchObject({
      status: 200,
      json: { output: "echo: two", isError: false, metadata: { agent: "Legacy Agent", state: "completed" } },
    });
    expect(modern.calls.some((c) => c.method === "SendMessage" && c.a2aVersion === "1.0")).toBe(true);
    expect(legacy.calls.some((c) => c.method === "message/send" && c.a2aVersion === "0.3")).toBe(true);
  });

  it("answers 200 with isError for a failed task", async () => {
    const r = await execute("Modern_Agent_echo", { arguments: { task: "fail out of cheese" } });
    const id = (r.json.metadata as { taskId: string }).taskId;
    expect(r).toEqual({
      status: 200,
      json: { output: `A2A task ${id} failed: out of cheese`, isError: true, metadata: expect.objectContaining({ state: "failed" }) },
    });
  });

  it("answers 502 UPSTREAM_UNAVAILABLE when the agent cannot be reached", async () => {
    const r = await execute("Doomed_Agent_echo", { arguments: { task: "echo x" } });
    expect(r.status).toBe(502);
    expect(r.json).toMatchObject({
      code: "UPSTREAM_UNAVAILABLE",
      detail: 'A2A agent "doomed" cannot be reached: connection refused (ECONNREFUSED)',
    });
  });

  it("cancels the task at the agent when the REST client disconnects", async () => {
    const before = modern.log.received.length;
    const req = request(`${s.url}/tools/Modern_Agent_echo/execute`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "a2a-disconnect" },
    });
    req.on("error", () => {}); // the socket is destroyed on purpose
    req.end(JSON.stringify({ arguments: { task: "slow" } }));
    await eventually(() => modern.log.received.length > before);
    const polls = () => modern.calls.filter((c) => c.method === "GetTask").length;
    const atStart = polls();
    await eventually(() => polls() > atStart); // polling is under way
    req.destroy();
    await eventually(() => modern.log.canceled.length === 1);
    expect(modern.calls.at(-1)?.method).toBe("CancelTask");
    await eventually(() => s.logs.some((l) => l.reqId === "a2a-disconnect" && l.msg === "tool call"));
    expect(s.logs.find((l) => l.reqId === "a2a-disconnect" && l.msg === "tool call")).toMatchObject({
      outcome: "cancelled",
      statusCode: 499,
    });
    const after = polls();
    await new Promise((r) => setTimeout(r, 100));
    expect(polls()).toBe(after); // polling stopped
  });

  it("answers 504 when the call's timeoutMs runs out, and cancels the task at the agent", async () => {
    const canceled = modern.log.canceled.length;
    const r = await execute("Modern_Agent_echo", { arguments: { task: "slow" }, timeoutMs: 300 });
    expect(r).toMatchObject({ status: 504, json: { code: "TOOL_TIMEOUT" } });
    await eventually(() => modern.log.canceled.length === canceled + 1);
  });

  it("sent the configured header to the agent and never logged its value", () => {
    expect(modern.calls.length).toBeGreaterThan(0);
    expect(modern.calls.every((c) => c.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(s.logText()).not.toContain(TOKEN);
  });
});
