import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { defineTool } from "../../../src/core/define-tool.js";
import {
  acceptedExecution,
  getExecution,
  longPollChecks,
  pollUntil,
  readEvents,
  retentionChecks,
  submit,
  type ExecutionBody,
} from "../../helpers/executions.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { preferredWait, responseGone } from "../../../src/server/executions/long-poll.js";
import { testTools, type SignalLog } from "../../helpers/tools.js";

const KEY_A = "key-a-0123456789abcdef";
const KEY_B = "key-b-0123456789abcdef";
const A = { authorization: `Bearer ${KEY_A}` };
const B = { authorization: `Bearer ${KEY_B}` };
const log: SignalLog = {};
let runs = 0;
let s: TestServer;

const extraTools = [
  defineTool({
    name: "steps",
    description: "reports progress n times, then answers",
    inputSchema: { type: "object", properties: { n: { type: "integer" } } },
    run: async ({ n }, ctx) => {
      for (let i = 1; i <= Number(n); i++) {
        ctx.onProgress?.({ progress: i, total: Number(n), message: `step ${i}` });
        await new Promise((r) => setTimeout(r, 5));
      }
      return `did ${String(n)}`;
    },
  }),
  defineTool({ name: "count", description: "counts its runs", inputSchema: { type: "object" }, run: () => String(++runs) }),
];

beforeAll(async () => {
  s = await startServer({
    config: {
      auth: {
        apiKeys: [
          { id: "a", key: KEY_A },
          { id: "b", key: KEY_B },
        ],
      },
      server: { maxConcurrent: 512 },
    },
    tools: [...testTools(log), ...extraTools],
  });
});
afterAll(() => s.close());

async function accepted(res: Response): Promise<ExecutionBody> {
  expect(res.status).toBe(202);
  const body = (await res.json()) as ExecutionBody;
  expect(res.headers.get("location")).toBe(`/executions/${body.id}`);
  expect(res.headers.get("operation-location")).toBe(`${s.url}/executions/${body.id}`);
  expect(res.headers.get("retry-after")).toBe("1");
  return body;
}

async function problem(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ status, code });
  return body;
}

const cancel = (id: string, headers = A) => fetch(`${s.url}/executions/${id}/cancel`, { method: "POST", headers });

describe("Operation-Location", () => {
  it("is built from the request's Host, and from X-Forwarded-Host/Proto only behind a trusted proxy", async () => {
    const forwarded = { ...A, "content-type": "application/json", "x-forwarded-host": "tools.example.com", "x-forwarded-proto": "https" };
    const direct = await fetch(`${s.url}/tools/steps/executions`, { method: "POST", headers: forwarded, body: "{}" });
    expect(direct.headers.get("operation-location")).toMatch(new RegExp(`^${s.url}/executions/[0-9a-f]{32}$`));

    const proxied = await startServer({
      config: { server: { trustProxy: ["127.0.0.1"] }, auth: { apiKeys: [{ id: "a", key: KEY_A }] } },
      tools: extraTools,
    });
    try {
      const res = await fetch(`${proxied.url}/tools/steps/executions`, { method: "POST", headers: forwarded, body: "{}" });
      expect(res.status).toBe(202);
      expect(res.headers.get("operation-location")).toMatch(/^https:\/\/tools\.example\.com\/executions\/[0-9a-f]{32}$/);
    } finally {
      await proxied.close();
    }
  });
});

describe("executions in the process", () => {
  it("202 → poll → succeeded with the ToolResult", async () => {
    const e = await accepted(await submit(s.url, "echo", { arguments: { text: "hi" } }, A));
    expect(e).toMatchObject({ tool: "echo" });
    expect(["queued", "running", "succeeded"]).toContain(e.status);
    const done = await pollUntil(s.url, e.id, ["succeeded"], { headers: A });
    expect(done.result).toEqual({ output: "hi", isError: false });
    expect(Date.parse(done.expiresAt)).toBeGreaterThan(Date.parse(done.updatedAt));
    const res = await fetch(`${s.url}/executions/${e.id}`, { headers: A });
    expect(res.headers.get("retry-after")).toBeNull();
  });

  it("an isError result is succeeded, with the isError result", async () => {
    const e = await accepted(await submit(s.url, "divide", { arguments: { a: 1, b: 0 } }, A));
    const done = await pollUntil(s.url, e.id, ["succeeded"], { headers: A });
    expect(done.result).toEqual({ output: "Cannot divide by zero", isError: true });
  });

  it("a timeout is failed with TOOL_TIMEOUT; a throwing tool failed with TOOL_FAILED", async () => {
    const e = await accepted(await submit(s.url, "slow", { arguments: { ms: 5000 }, timeoutMs: 100 }, A));
    const running = await getExecution(s.url, e.id, A);
    expect(running.status).toBe(200);
    const done = await pollUntil(s.url, e.id, ["failed"], { headers: A });
    expect(done.error).toMatchObject({ code: "TOOL_TIMEOUT", status: 504 });
    const boom = await accepted(await submit(s.url, "explode", {}, A));
    const failed = await pollUntil(s.url, boom.id, ["failed"], { headers: A });
    expect(failed.error).toMatchObject({ code: "TOOL_FAILED", status: 500 });
    expect(JSON.stringify(failed)).not.toContain("hunter2");
  });

  it("cancel → cancelled, and the tool's signal aborted with CANCELLED", async () => {
    const e = await accepted(await submit(s.url, "slow", { arguments: { ms: 10_000 } }, A));
    await pollUntil(s.url, e.id, ["running"], { headers: A });
    const res = await cancel(e.id);
    expect(res.status).toBe(200);
    const body = (await res.json()) as ExecutionBody;
    expect(body.status).toBe("cancelled");
    expect(body.error).toMatchObject({ code: "CANCELLED", status: 499 });
    expect((log.reason as { code?: string }).code).toBe("CANCELLED");
    // Cancelling a finished execution leaves it unchanged.
    const again = await cancel(e.id);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(body);
  });

  it("another caller's execution is 404, in GET, cancel, events and the list", async () => {
    const e = await accepted(await submit(s.url, "echo", { arguments: { text: "mine" } }, A));
    await problem(await fetch(`${s.url}/executions/${e.id}`, { headers: B }), 404, "EXECUTION_NOT_FOUND");
    await problem(await cancel(e.id, B), 404, "EXECUTION_NOT_FOUND");
    await problem(await fetch(`${s.url}/executions/${e.id}/events`, { headers: B }), 404, "EXECUTION_NOT_FOUND");
    const list = (await (await fetch(`${s.url}/executions?limit=100`, { headers: B })).json()) as { executions: ExecutionBody[] };
    expect(list.executions.map((x) => x.id)).not.toContain(e.id);
  });

  it("Idempotency-Key: the same call replays the same execution and runs once; another call is 409", async () => {
    const headers = { ...A, "idempotency-key": "job-42" };
    const first = await accepted(await submit(s.url, "count", { arguments: { x: 1, y: 2 } }, headers));
    await pollUntil(s.url, first.id, ["succeeded"], { headers: A });
    // Same body with its keys in another order is the same call.
    const replay = await accepted(await submit(s.url, "count", { arguments: { y: 2, x: 1 } }, headers));
    expect(replay.id).toBe(first.id);
    expect(runs).toBe(1);
    await problem(await submit(s.url, "count", { arguments: { x: 2 } }, headers), 409, "IDEMPOTENCY_KEY_REUSED");
    // Keys are scoped to the caller: B's "job-42" is its own.
    const other = await accepted(await submit(s.url, "count", { arguments: { x: 1, y: 2 } }, { ...B, "idempotency-key": "job-42" }));
    expect(other.id).not.toBe(first.id);
  });

  it("events: execution, progress…, result; Last-Event-ID resumes after an event", async () => {
    const e = await accepted(await submit(s.url, "steps", { arguments: { n: 3 } }, A));
    const { res, events } = await readEvents(s.url, e.id, A);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(events.map((x) => x.event)).toEqual(["execution", "progress", "progress", "progress", "result"]);
    expect(events[0]?.id).toBeUndefined();
    expect(events.slice(1).map((x) => x.id)).toEqual(["1", "2", "3", "4"]);
    expect(JSON.parse(events[2]?.data ?? "")).toEqual({ progress: 2, total: 3, message: "step 2" });
    expect(JSON.parse(events[4]?.data ?? "")).toEqual({ output: "did 3", isError: false });
    const resumed = await readEvents(s.url, e.id, { ...A, "last-event-id": "2" });
    expect(resumed.events.map((x) => `${x.event}:${x.id ?? ""}`)).toEqual(["execution:", "progress:3", "result:4"]);
    expect(JSON.parse(resumed.events[0]?.data ?? "")).toMatchObject({ id: e.id, status: "succeeded", progress: { progress: 3 } });
  });

  it("events of a failed execution end with an error event", async () => {
    const e = await accepted(await submit(s.url, "slow", { arguments: { ms: 5000 }, timeoutMs: 50 }, A));
    const { events } = await readEvents(s.url, e.id, A);
    expect(events.at(-1)?.event).toBe("error");
    expect(JSON.parse(events.at(-1)?.data ?? "")).toMatchObject({ code: "TOOL_TIMEOUT" });
  });

  it("GET /executions lists the caller's own, newest first, paginated and filtered by status", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await accepted(await submit(s.url, "echo", { arguments: { text: `p${i}` } }, B))).id);
    for (const id of ids) await pollUntil(s.url, id, ["succeeded"], { headers: B });
    const page1 = (await (await fetch(`${s.url}/executions?limit=2&status=succeeded`, { headers: B })).json()) as {
      executions: ExecutionBody[];
      next?: string;
    };
    expect(page1.executions.map((x) => x.id)).toEqual([ids[2], ids[1]]);
    expect(page1.next).toBeTypeOf("string");
    const page2 = (await (await fetch(`${s.url}/executions?limit=2&status=succeeded&cursor=${page1.next}`, { headers: B })).json()) as {
      executions: ExecutionBody[];
      next?: string;
    };
    expect(page2.executions.map((x) => x.id)).toContain(ids[0]);
    const none = (await (await fetch(`${s.url}/executions?status=running`, { headers: B })).json()) as { executions: unknown[] };
    expect(none.executions).toEqual([]);
  });

  it("lookup, access and arguments are answered synchronously", async () => {
    await problem(await submit(s.url, "nope", {}, A), 404, "TOOL_NOT_FOUND");
    await problem(await submit(s.url, "echo", { arguments: {} }, A), 422, "INVALID_ARGUMENTS");
    await problem(await submit(s.url, "echo", { arguments: { text: "x" } }), 401, "UNAUTHORIZED");
    await problem(await submit(s.url, "echo", { arguments: { text: "x" }, extra: 1 }, A), 400, "INVALID_REQUEST");
  });

  it("bad input is problem+json and loses nothing", async () => {
    await problem(await fetch(`${s.url}/executions/${"0".repeat(32)}`, { headers: A }), 404, "EXECUTION_NOT_FOUND");
    await problem(await fetch(`${s.url}/executions/not-an-id`, { headers: A }), 400, "INVALID_REQUEST");
    await problem(await cancel("..%2F..%2Ftools"), 400, "INVALID_REQUEST");
    await problem(
      await submit(s.url, "echo", { arguments: { text: "x" } }, { ...A, "idempotency-key": "k".repeat(257) }),
      400,
      "INVALID_REQUEST",
    );
    await problem(await fetch(`${s.url}/executions?cursor=abc`, { headers: A }), 400, "INVALID_REQUEST");
    await problem(await fetch(`${s.url}/executions?limit=0`, { headers: A }), 400, "INVALID_REQUEST");
    const e = await accepted(await submit(s.url, "echo", { arguments: { text: "kept" } }, A));
    await pollUntil(s.url, e.id, ["succeeded"], { headers: A });
    await problem(
      await fetch(`${s.url}/executions/${e.id}/events`, { headers: { ...A, "last-event-id": "garbage" } }),
      400,
      "INVALID_REQUEST",
    );
    // Nothing lost: the execution still answers after every refused request.
    expect((await getExecution(s.url, e.id, A)).body.result).toEqual({ output: "kept", isError: false });
    // A key of exactly 256 characters is fine.
    await accepted(await submit(s.url, "echo", { arguments: { text: "x" } }, { ...A, "idempotency-key": "k".repeat(256) }));
  });

  it("the 101st queued or running execution of a caller is 429 OVERLOADED", async () => {
    const headers = { authorization: `Bearer ${KEY_B}` };
    const ids = await Promise.all(
      Array.from({ length: 100 }, async () => (await accepted(await submit(s.url, "slow", { arguments: { ms: 20_000 } }, headers))).id),
    );
    const res = await problem(await submit(s.url, "slow", { arguments: { ms: 1 } }, headers), 429, "OVERLOADED");
    expect(res.detail).toMatch(/100/);
    // Another caller is not affected, and a cancel frees a slot.
    await accepted(await submit(s.url, "echo", { arguments: { text: "a" } }, A));
    await Promise.all(ids.map((id) => cancel(id, headers)));
    await accepted(await submit(s.url, "echo", { arguments: { text: "b" } }, headers));
  });
});

describe("Prefer: wait", () => {
  it("a GET that asks to wait is answered once the execution ended or asks for input, or as it is after the wait", async () => {
    await longPollChecks(s.url, s.url, A);
  });

  it("a waiting GET stops when its client leaves (before the wait began or during it) or the service closes", async () => {
    const closing = new AbortController();
    const seen: Record<string, boolean> = {};
    let arrived = () => {};
    const server = createServer((req, res) => {
      if (req.url === "/left-before") {
        // The client is gone by the time the wait begins: its "close" has already fired.
        req.socket.once("close", () => (seen.leftBefore = responseGone(res, closing.signal).aborted));
      } else {
        responseGone(res, closing.signal).addEventListener("abort", () => (seen[req.url ?? ""] = true));
      }
      arrived();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const path of ["/left-before", "/leaves"]) {
        const leave = new AbortController();
        const there = new Promise<void>((r) => (arrived = r));
        const held = fetch(`${url}${path}`, { signal: leave.signal }).catch(() => undefined);
        await there;
        leave.abort();
        await held;
      }
      const there = new Promise<void>((r) => (arrived = r));
      const held = fetch(`${url}/stays`).catch(() => undefined);
      await there;
      closing.abort();
      await vi.waitFor(() => expect(seen).toEqual({ leftBefore: true, "/leaves": true, "/stays": true }));
      server.closeAllConnections();
      await held;
    } finally {
      server.close();
    }
  });

  it("reads wait=N among other preferences, capped at 30 s; anything else asks no wait", () => {
    expect(preferredWait("wait=5")).toBe(5);
    expect(preferredWait("respond-async, WAIT = 12")).toBe(12);
    expect(preferredWait('wait="7"')).toBe(7);
    expect(preferredWait("wait=3600")).toBe(30);
    for (const none of [undefined, "", "respond-async", "wait=", "wait=-1", "wait=1.5", "nowait=5", "wait=5x"])
      expect(preferredWait(none)).toBe(0);
  });
});

describe("retention", () => {
  it("a finished execution is 404 after executions.retentionMs, events included", async () => {
    const r = await startServer({ config: { executions: { retentionMs: 300 } }, tools: testTools() });
    try {
      const e = await acceptedExecution(await submit(r.url, "echo", { arguments: { text: "gone" } }));
      await pollUntil(r.url, e.id, ["succeeded"]);
      await new Promise((res) => setTimeout(res, 400));
      await problem(await fetch(`${r.url}/executions/${e.id}`), 404, "EXECUTION_NOT_FOUND");
      await problem(await fetch(`${r.url}/executions/${e.id}/events`), 404, "EXECUTION_NOT_FOUND");
      const list = (await (await fetch(`${r.url}/executions`)).json()) as { executions: unknown[] };
      expect(list.executions).toEqual([]);
    } finally {
      await r.close();
    }
  });

  it("past executions.maxRetainedPerCaller the executions that finished first are dropped", async () => {
    const r = await startServer({ config: { executions: { maxRetainedPerCaller: 2 } }, tools: testTools() });
    try {
      await retentionChecks.firstFinishedGoFirst(r.url);
    } finally {
      await r.close();
    }
  });

  it("an execution submitted long before the ones that pushed it past maxRetainedPerCaller is kept when it finishes", async () => {
    const r = await startServer({ config: { executions: { maxRetainedPerCaller: 2 } }, tools: testTools() });
    try {
      await retentionChecks.longRunKeptWhenItFinishes(r.url);
    } finally {
      await r.close();
    }
  });
});
