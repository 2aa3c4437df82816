import { describe, expect, it } from "vitest";
import type { AgentServerOptions } from "../../fixtures/a2a/agent-server.js";
import { agent, loadSource, toolNamed, until } from "./helpers.js";

/** The protocol variants a real @a2a-js/sdk 1.x agent can present, and the wire we must speak to each. */
const VARIANTS: { label: string; server: AgentServerOptions; send: string; get: string; cancel: string; version: string }[] = [
  { label: "A2A 1.0 (JSON-RPC)", server: { versions: ["1.0"] }, send: "SendMessage", get: "GetTask", cancel: "CancelTask", version: "1.0" },
  {
    label: "A2A 0.3 (JSON-RPC, SDK v0.3 compat layer)",
    server: { versions: ["0.3"] },
    send: "message/send",
    get: "tasks/get",
    cancel: "tasks/cancel",
    version: "0.3",
  },
];

describe.each(VARIANTS)("A2A agent speaking $label", (v) => {
  it("exposes one tool per card skill, prefixed with the card name", async () => {
    const a = await agent(v.server);
    const src = await loadSource({ card: a.cardUrl });
    expect(src.status()).toEqual({ source: "a2a", name: "peer", state: "connected", tools: 2 });
    expect(src.tools().map((t) => [t.name, t.description, t.source])).toEqual([
      ["Test_Agent_echo", "Echoes the task back.", "a2a"],
      ["Test_Agent_do_work", "Does some work.", "a2a"],
    ]);
    expect(src.tools()[0]?.inputSchema).toEqual({ type: "object", properties: { task: { type: "string" } }, required: ["task"] });
  });

  it("takes its tool-name prefix from `prefix`, or none with `prefix: false`", async () => {
    const a = await agent(v.server);
    expect((await loadSource({ card: a.cardUrl, prefix: "peer one" })).tools().map((t) => t.name)).toEqual([
      "peer_one_echo",
      "peer_one_do_work",
    ]);
    expect((await loadSource({ card: a.cardUrl, prefix: false })).tools().map((t) => t.name)).toEqual(["echo", "do_work"]);
  });

  it("sends the message, polls the task and maps a completed task to its artifact text", async () => {
    const a = await agent(v.server);
    const src = await loadSource({ card: a.cardUrl });
    const res = await toolNamed(src, "Test_Agent_echo").execute({ task: "echo hello there" });
    expect(res.output).toBe("echo: hello there");
    expect(res.isError).toBe(false);
    const meta = res.metadata as Record<string, unknown>;
    expect(meta).toMatchObject({ agent: "Test Agent", state: "completed" });
    expect(Object.keys(meta).sort()).toEqual(["agent", "ms", "polls", "state", "taskId"]);
    expect(meta.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(meta.polls).toBeGreaterThanOrEqual(1);
    expect(meta.ms).toEqual(expect.any(Number));
    // The wire: one send, then polls of the same task, each with this version's method names and header.
    expect(a.calls.map((c) => c.method)).toEqual([v.send, ...Array<string>(meta.polls as number).fill(v.get)]);
    expect(a.calls.every((c) => c.a2aVersion === v.version)).toBe(true);
  });

  it("joins the text parts of every artifact with newlines", async () => {
    const a = await agent(v.server);
    const res = await toolNamed(await loadSource({ card: a.cardUrl }), "Test_Agent_echo").execute({ task: "multi" });
    expect(res).toMatchObject({ output: "alpha\nbeta\ngamma", isError: false });
  });

  it("falls back to the last agent message of the history when there is no artifact", async () => {
    const a = await agent(v.server);
    const res = await toolNamed(await loadSource({ card: a.cardUrl }), "Test_Agent_echo").execute({ task: "history final word" });
    expect(res).toMatchObject({ output: "history: final word", isError: false });
  });

  it("maps a failed task to an isError result with the status message", async () => {
    const a = await agent(v.server);
    const res = await toolNamed(await loadSource({ card: a.cardUrl }), "Test_Agent_echo").execute({ task: "fail the disk is full" });
    const id = (res.metadata as { taskId: string }).taskId;
    expect(res).toEqual({
      output: `A2A task ${id} failed: the disk is full`,
      isError: true,
      metadata: expect.objectContaining({ state: "failed" }),
    });
  });

  it("maps a Message reply to SendMessage directly, without polling", async () => {
    const a = await agent(v.server);
    const res = await toolNamed(await loadSource({ card: a.cardUrl }), "Test_Agent_echo").execute({ task: "reply hi" });
    expect(res).toMatchObject({ output: "reply: hi", isError: false, metadata: { polls: 0, state: "completed" } });
    expect(a.calls.map((c) => c.method)).toEqual([v.send]);
  });

  it("times out with the contract's text and cancels the task at the agent", async () => {
    const a = await agent(v.server);
    const src = await loadSource({ card: a.cardUrl, timeout: 400 });
    const res = await toolNamed(src, "Test_Agent_echo").execute({ task: "slow" });
    const id = (res.metadata as { taskId: string }).taskId;
    expect(res.output).toBe(`A2A task ${id} timed out after 400ms (state=working)`);
    expect(res.isError).toBe(true);
    expect(a.log.canceled).toEqual([id]);
    expect(a.calls.at(-1)?.method).toBe(v.cancel);
  });

  it("on abort stops polling, cancels the task at the agent and returns", async () => {
    const a = await agent(v.server);
    const src = await loadSource({ card: a.cardUrl });
    const ac = new AbortController();
    const pending = toolNamed(src, "Test_Agent_echo").execute({ task: "slow" }, { signal: ac.signal });
    await until(() => a.calls.filter((c) => c.method === v.get).length >= 2);
    ac.abort();
    const res = await pending;
    const id = (res.metadata as { taskId: string }).taskId;
    expect(res).toMatchObject({ output: `A2A task ${id} canceled`, isError: true, metadata: { state: "canceled" } });
    expect(a.log.canceled).toEqual([id]);
    const polls = a.calls.filter((c) => c.method === v.get).length;
    await new Promise((r) => setTimeout(r, 100));
    expect(a.calls.filter((c) => c.method === v.get).length).toBe(polls);
  });
});

describe("A2A interrupted and immediate states", () => {
  it("stops at input-required and at rejected instead of polling until the timeout", async () => {
    const a = await agent();
    const tool = toolNamed(await loadSource({ card: a.cardUrl, timeout: 10_000 }), "Test_Agent_echo");
    const input = await tool.execute({ task: "input" });
    const inputId = (input.metadata as { taskId: string }).taskId;
    expect(input).toMatchObject({ output: `A2A task ${inputId} input-required: which one?`, isError: true });
    const rejected = await tool.execute({ task: "reject" });
    expect(rejected.output).toBe(`A2A task ${(rejected.metadata as { taskId: string }).taskId} rejected`);
  });

  it("maps a task that SendMessage already returns completed without polling", async () => {
    const a = await agent();
    const res = await toolNamed(await loadSource({ card: a.cardUrl }), "Test_Agent_echo").execute({ task: "instant now" });
    expect(res).toMatchObject({ output: "instant: now", isError: false, metadata: { polls: 0, state: "completed" } });
    expect(a.calls.map((c) => c.method)).toEqual(["SendMessage"]);
  });
});
