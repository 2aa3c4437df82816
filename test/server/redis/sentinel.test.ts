import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { defineTool } from "../../../src/core/define-tool.js";
import { executionsOnRedis } from "../../helpers/executions-on-redis.js";
import { sharedStateOnRedis } from "../../helpers/shared-state-on-redis.js";
import { pollUntil, submit, type ExecutionBody } from "../../helpers/executions.js";
import { startSentinel, type SentinelSet } from "../../helpers/redis-ha.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { eventually } from "../../helpers/wait.js";
import { tasksRpcReply } from "../../helpers/mcp-rpc.js";

// A primary, its replica and three sentinels (quorum 2) on free ports.
let sentinel: SentinelSet;
beforeAll(async () => {
  sentinel = await startSentinel();
});
afterAll(async () => {
  await sentinel?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TERMINAL = new Set(["succeeded", "failed", "cancelled"]);

// The executions suite of one Redis, unchanged, against the primary the sentinels name.
executionsOnRedis("executions on a Sentinel-managed primary, two servers", () => ({
  sentinels: sentinel.sentinels,
  name: sentinel.name,
  namespace: "tnx-sentinel",
}));

// Rate limits, pins, the vault and change events on the primary the sentinels name.
sharedStateOnRedis("rate limits, pins, the vault and change events on a Sentinel-managed primary", () => ({
  sentinels: sentinel.sentinels,
  name: sentinel.name,
  namespace: "tnx-sentinel-shared",
}));

// How often each submission's tool ran, by the token it was given: more than once is a duplicate.
const runs = new Map<string, number>();

describe("the primary killed under load, two servers", () => {
  const KEYS = { rest: "rest-key-0123456789abcdef", mcp: "mcp-key-0123456789abcdefgh" };
  const work = defineTool({
    name: "work",
    description: "counts its run, waits ms, answers with its token",
    inputSchema: { type: "object", properties: { token: { type: "string" }, ms: { type: "integer" } } },
    run: async ({ token, ms }) => {
      runs.set(String(token), (runs.get(String(token)) ?? 0) + 1);
      await sleep(Number(ms));
      return `did ${String(token)}`;
    },
  });
  let servers: TestServer[] = [];

  beforeAll(async () => {
    const config = {
      redis: { sentinels: sentinel.sentinels, name: sentinel.name, namespace: "tnx-failover" },
      auth: {
        apiKeys: [
          { id: "rest", key: KEYS.rest },
          { id: "mcp", key: KEYS.mcp },
        ],
      },
      // Job locks (lostAfterMs / 3) outlast a failover, even one whose first election split.
      executions: { maxActivePerCaller: 1000, maxRetainedPerCaller: 10_000, lostAfterMs: 60_000 },
      server: { mcp: { enabled: true, path: "/mcp", pageSize: 100, taskAfterMs: 1000, taskSupport: { work: "required" as const } } },
    };
    servers = await Promise.all([startServer({ config, tools: [work] }), startServer({ config, tools: [work] })]);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it("every execution and task ends once, Idempotency-Keys replay, submits work after the failover, /readyz tells the outage", async () => {
    // What the servers said about Redis and the executions, to tell a failure's story.
    onTestFailed(() => {
      for (const [i, s] of servers.entries()) {
        for (const l of s.logs) if (/redis|execution|outcome|run/.test(String(l.msg))) console.log(i, JSON.stringify(l));
      }
    });
    const readyz = watchReadyz(servers);
    const load = new Load(servers, KEYS);
    const lanes = load.start();
    let reconnectedMs = 0;
    try {
      await eventually(() => load.rest.size >= 30 && load.tasks.size >= 10, { timeoutMs: 10_000, everyMs: 20 });
      await sentinel.killPrimary();
      const killedAt = Date.now();
      expect(await sentinel.waitForNewPrimary()).not.toBe(sentinel.primaryPort);
      // Both servers' command connections follow the sentinels to the new primary…
      await eventually(() => readyz.seen.every((s) => s.states.includes("unreachable") && s.states.at(-1) === "connected"), {
        timeoutMs: 10_000,
        everyMs: 20,
      });
      reconnectedMs = Date.now() - killedAt;
      // …and the load goes on through them for a while before it stops.
      const before = load.rest.size;
      await eventually(() => load.rest.size >= before + 30, { timeoutMs: 10_000, everyMs: 20 });
    } finally {
      load.stop();
      await readyz.stop();
    }
    await lanes;
    // A task that could not be created said why: Redis was unreachable, nothing else.
    expect([...load.taskErrors.keys()]).toEqual(load.taskErrors.size ? ["STORE_UNAVAILABLE"] : []);

    const after = await submitsAfterFailover(servers, load.auth.rest);
    await eachEndedOnce(servers, load, after);

    // Each Idempotency-Key, sent again to the other server, replays the execution it made.
    for (const [key, { id, body }] of load.rest) {
      const again = await submit(servers[1]?.url ?? "", "work", body, { ...load.auth.rest, "idempotency-key": key });
      expect(again.status).toBe(202);
      expect(((await again.json()) as ExecutionBody).id).toBe(id);
    }

    // Each server's /readyz said sentinel throughout, unreachable during the outage, connected at the end.
    for (const seen of readyz.seen) {
      expect(seen.modes).toEqual(new Set(["sentinel"]));
      expect(seen.states).toEqual(["connected", "unreachable", "connected"]);
    }
    const startRetries = servers.flatMap((s) => s.logs).filter((l) => l.msg === "run not started yet; retrying").length;
    const { rest, tasks, restRetries, taskErrors } = load;
    console.log(
      JSON.stringify({
        rest: rest.size,
        tasks: tasks.size,
        restRetries,
        taskErrors: Object.fromEntries(taskErrors),
        startRetries,
        reconnectedMs,
      }),
    );
  });

  /** Every submission accepted (a 202, a task created) ended once, as it should, and nothing else was created. */
  async function eachEndedOnce(servers: TestServer[], load: Load, after: Set<string>): Promise<void> {
    const rest = await settled(servers[0] as TestServer, load.auth.rest);
    const tracked = [...load.rest.values()];
    expect(new Set(tracked.map((t) => t.id)).size).toBe(tracked.length);
    // No execution beyond those answered 202: a retried submit created none of its own.
    expect([...rest.keys()].filter((id) => !after.has(id)).sort()).toEqual(tracked.map((t) => t.id).sort());
    for (const { id, token } of tracked) {
      const e = rest.get(id);
      expect(e, `execution ${id} of ${token}: ${JSON.stringify(e?.error)}`).toMatchObject({
        status: "succeeded",
        result: { output: `did ${token}` },
      });
    }
    const tasks = await settled(servers[1] as TestServer, load.auth.mcp);
    for (const [id, token] of load.tasks) {
      const e = tasks.get(id);
      expect(e, `task ${id} of ${token}: ${JSON.stringify(e?.error)}`).toMatchObject({
        status: "succeeded",
        result: { output: `did ${token}` },
      });
    }
    // A tool ran once per submission, whatever the failover did to its job.
    for (const [token, n] of runs) expect(n, `runs of ${token}`).toBe(1);
  }
});

/** A submit on each server once Redis is back runs to the end; their ids. */
async function submitsAfterFailover(servers: TestServer[], auth: Record<string, string>): Promise<Set<string>> {
  const after = new Set<string>();
  for (const [i, s] of servers.entries()) {
    const res = await submit(s.url, "work", { arguments: { token: `after-${i}`, ms: 1 } }, auth);
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as ExecutionBody;
    after.add(id);
    const done = await pollUntil(s.url, id, ["succeeded"], { headers: auth });
    expect(done.result).toEqual({ output: `did after-${i}`, isError: false });
  }
  return after;
}

/** Submissions through both servers at once: REST executions with Idempotency-Keys, and MCP tasks. */
class Load {
  /** Idempotency-Key → the execution its 202 named, the token it ran with, the body sent. */
  readonly rest = new Map<string, { id: string; token: string; body: unknown }>();
  /** Task id → token. */
  readonly tasks = new Map<string, string>();
  restRetries = 0;
  /** The code (error.data.code) of each tools/call that created no task → how often. */
  readonly taskErrors = new Map<string, number>();
  readonly auth: { rest: Record<string, string>; mcp: Record<string, string> };
  private stopped = false;

  constructor(
    private readonly servers: TestServer[],
    keys: { rest: string; mcp: string },
  ) {
    this.auth = { rest: { authorization: `Bearer ${keys.rest}` }, mcp: { authorization: `Bearer ${keys.mcp}` } };
  }

  /** Four REST lanes and two MCP lanes, spread over the servers; settles when they have stopped. */
  start(): Promise<void> {
    const lanes = [0, 1, 2, 3].map((lane) => this.restLane(lane));
    lanes.push(...[0, 1].map((lane) => this.taskLane(lane)));
    // Every lane stops before the first failure is told (none keeps submitting past the test).
    return Promise.allSettled(lanes).then((all) => {
      for (const r of all) if (r.status === "rejected") throw r.reason;
    });
  }

  stop(): void {
    this.stopped = true;
  }

  private url(n: number): string {
    return this.servers[n % this.servers.length]?.url ?? "";
  }

  private async restLane(lane: number): Promise<void> {
    for (let n = 0; !this.stopped; n++) {
      const key = `r${lane}-${n}`;
      const body = { arguments: { token: key, ms: 20 + (n % 5) * 20 } };
      const id = await this.submitUntilAccepted(lane + n, key, body);
      this.rest.set(key, { id, token: key, body });
      await sleep(25);
    }
  }

  // Like a client: a 503 or a dropped connection is retried with the same Idempotency-Key (on the other server).
  private async submitUntilAccepted(first: number, key: string, body: unknown): Promise<string> {
    const end = Date.now() + 15_000;
    for (let attempt = 0; ; attempt++) {
      const res = await submit(this.url(first + attempt), "work", body, { ...this.auth.rest, "idempotency-key": key }).catch(
        () => undefined,
      );
      if (res?.status === 202) return ((await res.json()) as ExecutionBody).id;
      if (res && res.status !== 503) throw new Error(`submit ${key}: ${res.status} ${await res.text()}`);
      if (Date.now() > end) throw new Error(`submit ${key}: not accepted within 15 s`);
      this.restRetries++;
      await sleep(100);
    }
  }

  // A task that could not be created is an error answer, not retried (tools/call has no Idempotency-Key).
  private async taskLane(lane: number): Promise<void> {
    for (let n = 0; !this.stopped; n++) {
      const token = `t${lane}-${n}`;
      const call = mcpCall(this.url(lane + n), this.auth.mcp, "tools/call", { name: "work", arguments: { token, ms: 30 } });
      const reply: JsonRpcReply = await call.catch((err: Error) => ({ error: { data: { code: err.message } } }));
      const taskId = (reply.result as { taskId?: string } | undefined)?.taskId;
      const code = String((reply.error as { data?: { code?: string } } | undefined)?.data?.code);
      if (taskId) this.tasks.set(taskId, token);
      else this.taskErrors.set(code, (this.taskErrors.get(code) ?? 0) + 1);
      await sleep(taskId ? 40 : 100);
    }
  }
}

/** A JSON-RPC answer: a result, or an error. */
interface JsonRpcReply {
  result?: unknown;
  error?: unknown;
}

/** One JSON-RPC request to /mcp declaring the tasks extension (the 2026-07-28 era). */
function mcpCall(
  url: string,
  auth: Record<string, string>,
  method: string,
  params: { name: string; arguments: unknown },
): Promise<JsonRpcReply> {
  return tasksRpcReply(url, method, params, { client: "sentinel-test", headers: auth });
}

/** Every execution of the caller, once none is queued or running any more (within 10 s). */
async function settled(server: TestServer, auth: Record<string, string>): Promise<Map<string, ExecutionBody>> {
  return eventually(
    async () => {
      const all = new Map<string, ExecutionBody>();
      let cursor: string | undefined;
      do {
        const res = await fetch(`${server.url}/executions?limit=100${cursor ? `&cursor=${cursor}` : ""}`, { headers: auth });
        if (res.status !== 200) return undefined;
        const page = (await res.json()) as { executions: ExecutionBody[]; next?: string };
        for (const e of page.executions) all.set(e.id, e);
        cursor = page.next;
      } while (cursor);
      return [...all.values()].every((e) => TERMINAL.has(e.status)) && all;
    },
    { timeoutMs: 10_000, everyMs: 200 },
  );
}

/** Polls each server's /readyz every 20 ms: the modes and the sequence of Redis states it reported. */
function watchReadyz(servers: TestServer[]) {
  const seen = servers.map(() => ({ modes: new Set<string>(), states: [] as string[] }));
  let stopped = false;
  const poll = async (server: TestServer, i: number) => {
    while (!stopped) {
      const res = await fetch(`${server.url}/readyz`).catch(() => undefined);
      const body = ((await res?.json().catch(() => undefined)) ?? {}) as { redis?: { mode: string; state: string } };
      const s = seen[i];
      if (s && body.redis) {
        s.modes.add(body.redis.mode);
        if (s.states.at(-1) !== body.redis.state) s.states.push(body.redis.state);
      }
      await sleep(20);
    }
  };
  const polls = servers.map((s, i) => poll(s, i));
  return {
    seen,
    stop: () => {
      stopped = true;
      return Promise.all(polls);
    },
  };
}
