import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client";
import type { JsonValue } from "@modelcontextprotocol/ext-tasks/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { taskDispatcher, taskSessionOn, type Reply } from "../helpers/mcp-rpc.js";
import { startRedis } from "../helpers/redis.js";
import { startCluster } from "../helpers/redis-ha.js";
import { startServeProcess, type ServeProcess } from "../helpers/serve-process.js";
import { eventually } from "../helpers/wait.js";

const root = path.resolve(import.meta.dirname, "../..");
const MODERN = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
const KEYS = { alice: "alice-key-0123456789abcdef", bob: "bob-key-0123456789abcdefgh" };
const CLIENT_INFO = { name: "tasks-test", version: "1.0.0" };
type Json = Record<string, unknown>;

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const dispatcher = (replica: ServeProcess, key: string) => taskDispatcher(`${replica.url}/mcp`, bearer(key));

/**
 * One JSON-RPC request of `key` to `replica`, its `_meta` declaring the tasks extension unless
 * `tasks` is false, and the other client capabilities in `caps`.
 */
function rpc(replica: ServeProcess, key: string, method: string, params: Json, tasks = true, caps: Json = {}): Promise<Reply> {
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    "io.modelcontextprotocol/clientCapabilities": { ...caps, ...(tasks ? { extensions: { [TASKS]: {} } } : {}) },
  };
  return dispatcher(replica, key)({ method, params: { ...params, _meta } } as JsonValue);
}

const taskSession = (replica: ServeProcess, key: string) => taskSessionOn(`${replica.url}/mcp`, bearer(key), CLIENT_INFO);

const resultOf = (r: Reply): Json => {
  if (r.kind !== "result") throw new Error(`expected a result, got ${JSON.stringify(r.error)}`);
  return r.result;
};

async function settled(replica: ServeProcess, key: string, taskId: string): Promise<Json> {
  let last: Json = {};
  await eventually(
    async () => {
      last = resultOf(await rpc(replica, key, "tasks/get", { taskId }));
      return last.status !== "working";
    },
    { timeoutMs: 10_000, everyMs: 50 },
  );
  return last;
}

/** A Redis the two replicas share, and its `redis:` section. */
interface SharedRedis {
  yaml: string;
  stop(): Promise<void>;
}

const TOPOLOGIES: [string, () => Promise<SharedRedis>][] = [
  [
    "one Redis",
    async () => {
      const r = await startRedis();
      return { yaml: `redis: { url: "${r.url}" }`, stop: () => r.stop() };
    },
  ],
  [
    // Every script and MULTI of a task must keep its keys in one slot, or the Cluster refuses it (CROSSSLOT).
    "a Redis Cluster",
    async () => {
      const c = await startCluster();
      return { yaml: `redis: { cluster: ${JSON.stringify(c.nodes)}, namespace: tnx-tasks }`, stop: () => c.stop() };
    },
  ],
];

describe.each(TOPOLOGIES)("/mcp tasks (io.modelcontextprotocol/tasks) backed by executions on two replicas sharing %s", (_, start) => {
  let redis: SharedRedis;
  let a: ServeProcess;
  let b: ServeProcess;
  let dir: string;

  beforeAll(async () => {
    redis = await start();
    dir = await mkdtemp(path.join(os.tmpdir(), "toolnexus-tasks-"));
    const config = [
      redis.yaml,
      "auth:",
      "  apiKeys:",
      `    - { id: alice, key: ${KEYS.alice} }`,
      `    - { id: bob, key: ${KEYS.bob} }`,
      `plugins: [${JSON.stringify(path.join(root, "test/fixtures/plugins/conformance-tasks.mjs"))}]`,
      // A 2025-era upstream that asks mid-call: its held call makes the task input_required.
      `mcpServers: { asker: { command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(path.join(root, "test/fixtures/mcp/asking-server.mjs"))}] } }`,
      // One stateSecret on both replicas: a requestState sealed on one opens on the other.
      "server: { stateSecret: a-shared-tasks-test-secret-0123456789, mcp: { taskAfterMs: 200, taskSupport: { greet: optional, asker_ask: required } } }",
    ].join("\n");
    await writeFile(path.join(dir, "toolnexus.yaml"), config);
    [a, b] = await Promise.all([startServeProcess(dir, process.env), startServeProcess(dir, process.env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("advertises the extension in server/discover", async () => {
    const discover = resultOf(await rpc(a, KEYS.alice, "server/discover", {}));
    expect(discover).toHaveProperty(["capabilities", "extensions", TASKS]);
  });

  it("a v2 SDK tasks session: the task is created on one replica, polled on the other, its result inline", async () => {
    const session = await taskSession(a, KEYS.alice);
    try {
      const execution = await session.callTool("slow_compute", { seconds: 1, label: "e2e" });
      expect(execution.kind).toBe("task");
      const taskId = execution.handle!.taskId;
      const onB = resultOf(await rpc(b, KEYS.alice, "tasks/get", { taskId }));
      expect(onB).toMatchObject({ taskId, status: "working", pollIntervalMs: 1000 });
      expect(onB.ttlMs).toBeGreaterThan(0);
      const { outcome } = await execution.settle();
      expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: "text", text: "computed e2e after 1s" }] });
      const done = await settled(b, KEYS.alice, taskId);
      expect(done).toMatchObject({ status: "completed", resultType: "complete", result: { resultType: "complete" } });
      // The task is the caller's execution, over REST as well.
      const rest = await fetch(`${b.url}/executions/${taskId}`, { headers: { authorization: `Bearer ${KEYS.alice}` } });
      expect(await rest.json()).toMatchObject({ id: taskId, tool: "slow_compute", status: "succeeded" });
    } finally {
      await session.close();
    }
  });

  it("answers a call that settles within taskAfterMs directly; a tool error completes with isError, a crash fails", async () => {
    const session = await taskSession(a, KEYS.alice);
    try {
      // greet has no task support of its own: server.mcp.taskSupport gives it one.
      const quick = await session.callTool("greet", { name: "World" });
      expect(quick.kind).toBe("immediate");
      expect(resultFromTaskOutcome((await quick.settle()).outcome)).toMatchObject({ content: [{ text: "Hello, World!" }] });
      const failing = await session.callTool("failing_job", {});
      expect(failing.kind).toBe("task");
      expect(await settled(a, KEYS.alice, failing.handle!.taskId)).toMatchObject({ status: "completed", result: { isError: true } });
      const crash = resultOf(await rpc(a, KEYS.alice, "tools/call", { name: "protocol_error_job", arguments: {} }));
      const failed = await settled(b, KEYS.alice, crash.taskId as string);
      expect(failed).toMatchObject({ status: "failed", error: { code: -32603, data: { code: "TOOL_FAILED" } } });
      expect(failed).not.toHaveProperty("result");
    } finally {
      await session.close();
    }
  });

  it("a task whose upstream asks mid-call is input_required with inputRequests inline; tasks/update on the other replica answers it and it completes", async () => {
    const session = await taskSession(a, KEYS.alice);
    try {
      const execution = await session.callTool("asker_ask", { message: "Favourite colour?" });
      expect(execution.kind).toBe("task");
      const taskId = execution.handle!.taskId;
      let waiting: Json = {};
      await eventually(
        async () => {
          waiting = resultOf(await rpc(b, KEYS.alice, "tasks/get", { taskId }));
          return waiting.status === "input_required";
        },
        { timeoutMs: 10_000, everyMs: 50 },
      );
      const requests = Object.entries(waiting.inputRequests as Record<string, { method: string; params: Json }>);
      expect(requests).toHaveLength(1);
      const [key, request] = requests[0]!;
      expect(request).toMatchObject({ method: "elicitation/create", params: { message: "Favourite colour?" } });
      // Another caller cannot answer it; a response to a request it did not make is ignored.
      expect(await rpc(b, KEYS.bob, "tasks/update", { taskId, inputResponses: { [key]: {} } })).toMatchObject({
        kind: "error",
        error: { code: -32602 },
      });
      const answer = { action: "accept", content: { response: "blue" } };
      resultOf(await rpc(b, KEYS.alice, "tasks/update", { taskId, inputResponses: { [key]: answer, stray: {} } }));
      const { outcome } = await execution.settle();
      const result = resultFromTaskOutcome(outcome) as { content: { text: string }[] };
      expect(JSON.parse(result.content[0]!.text)).toEqual(answer);
      expect(await settled(a, KEYS.alice, taskId)).toMatchObject({ status: "completed" });
    } finally {
      await session.close();
    }
  });

  it("a native tool's pending holds its task input_required; tasks/update on the other replica answers it, by its owner only", async () => {
    const taskId = resultOf(await rpc(a, KEYS.alice, "tools/call", { name: "confirm_delete", arguments: { filename: "t.txt" } }))
      .taskId as string;
    const waiting = await settled(b, KEYS.alice, taskId);
    expect(waiting).toMatchObject({
      status: "input_required",
      inputRequests: { input: { method: "elicitation/create", params: { mode: "form", message: "Delete t.txt?" } } },
    });
    const accepted = { input: { action: "accept", content: { confirm: true } } };
    expect(await rpc(b, KEYS.bob, "tasks/update", { taskId, inputResponses: accepted })).toMatchObject({
      kind: "error",
      error: { code: -32602 },
    });
    // An ElicitResult without a valid action: refused, nothing delivered.
    expect(await rpc(b, KEYS.alice, "tasks/update", { taskId, inputResponses: { input: { action: "maybe" } } })).toMatchObject({
      kind: "error",
      error: { code: -32602, data: { code: "INVALID_INPUT_RESPONSES" } },
    });
    expect(resultOf(await rpc(b, KEYS.alice, "tasks/get", { taskId }))).toMatchObject({ status: "input_required" });
    resultOf(await rpc(b, KEYS.alice, "tasks/update", { taskId, inputResponses: accepted }));
    expect(await settled(a, KEYS.alice, taskId)).toMatchObject({
      status: "completed",
      result: { content: [{ type: "text", text: "Deleted t.txt" }] },
    });
    expect(await rpc(b, KEYS.alice, "tasks/update", { taskId, inputResponses: accepted })).toMatchObject({
      kind: "error",
      error: { code: -32602 },
    });
  });

  it("answers part of a task's requests: it waits on the others, then completes with both", async () => {
    const taskId = resultOf(await rpc(a, KEYS.alice, "tools/call", { name: "multi_input", arguments: {} })).taskId as string;
    const waiting = await settled(b, KEYS.alice, taskId);
    expect(Object.keys(waiting.inputRequests as Json).sort()).toEqual(["confirm", "name"]);
    // A response that fails the requested schema (confirm is a boolean).
    const wrong = await rpc(b, KEYS.alice, "tasks/update", {
      taskId,
      inputResponses: { confirm: { action: "accept", content: { confirm: "y" } } },
    });
    expect(wrong).toMatchObject({ kind: "error", error: { code: -32602, data: { code: "INVALID_INPUT_RESPONSES" } } });
    resultOf(
      await rpc(b, KEYS.alice, "tasks/update", { taskId, inputResponses: { name: { action: "accept", content: { name: "Ada" } } } }),
    );
    const half = resultOf(await rpc(a, KEYS.alice, "tasks/get", { taskId }));
    expect(half).toMatchObject({ status: "input_required" });
    expect(Object.keys(half.inputRequests as Json)).toEqual(["confirm"]);
    resultOf(
      await rpc(a, KEYS.alice, "tasks/update", { taskId, inputResponses: { confirm: { action: "accept", content: { confirm: true } } } }),
    );
    expect(await settled(b, KEYS.alice, taskId)).toMatchObject({
      status: "completed",
      result: { content: [{ text: "name=Ada, confirm=true" }] },
    });
  });

  it("a task that asks before taskAfterMs: input_required (MRTR) first, the retry on the other replica answers it and gets the task", async () => {
    const caps = { elicitation: {} };
    const call = { name: "test_tool_with_task", arguments: {} };
    const first = resultOf(await rpc(a, KEYS.alice, "tools/call", call, true, caps));
    expect(first).toMatchObject({ resultType: "input_required", inputRequests: { user_name: { method: "elicitation/create" } } });
    expect(first).not.toHaveProperty("taskId");
    const inputResponses = { user_name: { action: "accept", content: { name: "Alice" } } };
    // Another caller cannot use the state.
    const foreign = await rpc(b, KEYS.bob, "tools/call", { ...call, inputResponses, requestState: first.requestState }, true, caps);
    expect(foreign).toMatchObject({ kind: "error", error: { code: -32602, data: { code: "INVALID_STATE" } } });
    const second = resultOf(
      await rpc(b, KEYS.alice, "tools/call", { ...call, inputResponses, requestState: first.requestState }, true, caps),
    );
    expect(second).toMatchObject({ resultType: "task", status: "working" });
    expect(second).not.toHaveProperty("requestState");
    const done = await settled(a, KEYS.alice, second.taskId as string);
    expect(done).toMatchObject({ status: "completed", result: { content: [{ text: "Hello, Alice!" }] } });
  });

  it("cancels a task from the other replica (an empty ack, idempotent) and the run ends cancelled", async () => {
    const session = await taskSession(a, KEYS.alice);
    try {
      const execution = await session.callTool("slow_compute", { seconds: 60, label: "cancel-me" });
      const taskId = execution.handle!.taskId;
      const ack = resultOf(await rpc(b, KEYS.alice, "tasks/cancel", { taskId }));
      expect(Object.keys(ack).filter((k) => k !== "_meta")).toEqual(["resultType"]);
      expect((await execution.settle()).outcome.status).toBe("cancelled");
      expect(resultOf(await rpc(b, KEYS.alice, "tasks/cancel", { taskId }))).toMatchObject({ resultType: "complete" });
      expect(await rpc(a, KEYS.alice, "tasks/update", { taskId, inputResponses: {} })).toMatchObject({
        kind: "error",
        error: { code: -32602 },
      });
    } finally {
      await session.close();
    }
  });

  it("keeps one caller's task from another: -32602 as for an unknown id, and the task runs on", async () => {
    const taskId = resultOf(await rpc(a, KEYS.alice, "tools/call", { name: "slow_compute", arguments: { seconds: 60 } })).taskId as string;
    expect(taskId).toMatch(/^[0-9a-f]{32}$/);
    for (const [method, params] of [
      ["tasks/get", { taskId }],
      ["tasks/cancel", { taskId }],
      ["tasks/update", { taskId, inputResponses: {} }],
      ["tasks/get", { taskId: "0".repeat(32) }],
      ["tasks/get", { taskId: "not-a-task" }],
    ] as const) {
      const reply = await rpc(b, KEYS.bob, method, params);
      expect(reply).toMatchObject({ kind: "error", error: { code: -32602 } });
      expect(JSON.stringify(reply)).not.toContain("slow_compute");
    }
    expect(resultOf(await rpc(b, KEYS.alice, "tasks/get", { taskId }))).toMatchObject({ status: "working" });
    await rpc(a, KEYS.alice, "tasks/cancel", { taskId });
  });

  it("without the extension: a plain call for an optional tool, -32021 for a required one and for tasks/*", async () => {
    const plain = resultOf(await rpc(a, KEYS.alice, "tools/call", { name: "slow_compute", arguments: { seconds: 0.3 } }, false));
    expect(plain).toMatchObject({ resultType: "complete", content: [{ text: "computed  after 0.3s" }] });
    expect(plain).not.toHaveProperty("taskId");
    const refused = await rpc(a, KEYS.alice, "tools/call", { name: "failing_job", arguments: {} }, false);
    expect(refused).toMatchObject({
      kind: "error",
      error: { code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } },
    });
    expect(await rpc(a, KEYS.alice, "tasks/get", { taskId: "0".repeat(32) }, false)).toMatchObject({
      kind: "error",
      error: { code: -32021 },
    });
  });
});
