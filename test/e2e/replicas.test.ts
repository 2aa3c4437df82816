import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeTool } from "../helpers/execute.js";
import { pollUntil, readEvents, submit, type ExecutionBody } from "../helpers/executions.js";
import { freePort } from "../helpers/free-port.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";
import { eventually } from "../helpers/wait.js";

const root = path.resolve(fileURLToPath(import.meta.url), "../../..");
const cli = path.join(root, "dist/bundle/cli.js");
const LOST_AFTER_MS = 3000;
const GRACE_MS = 1000;

interface Replica {
  name: string;
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}
interface Mark {
  replica: string;
  tag: string;
  event: string;
  code?: string;
}

let redis: RedisServer;
let dir: string;
const replicas = new Map<string, Replica>();

async function startReplica(name: string): Promise<Replica> {
  const port = await freePort();
  const child = spawn(process.execPath, [cli, "serve", "--config", dir, "--port", String(port)], {
    stdio: ["ignore", "ignore", "ignore"],
    env: { ...process.env, REDIS_URL: redis.url, TOOLNEXUS_TEST_REPLICA: name, TOOLNEXUS_TEST_MARKS: path.join(dir, "marks.jsonl") },
  });
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () =>
      (await fetch(`${url}/readyz`).then(
        (r) => r.status,
        () => 0,
      )) === 200,
    { timeoutMs: 20_000, everyMs: 50 },
  );
  const replica = { name, url, child, exited };
  replicas.set(name, replica);
  return replica;
}

async function marks(tag: string): Promise<Mark[]> {
  const text = await readFile(path.join(dir, "marks.jsonl"), "utf8").catch(() => "");
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Mark)
    .filter((m) => m.tag === tag);
}

/** Submits a long wait on `via` and resolves with its id and the replica that runs it. */
async function runningSomewhere(via: Replica, tag: string): Promise<{ id: string; runner: Replica; other: Replica }> {
  const res = await submit(via.url, "wait", { arguments: { ms: 30_000, tag } });
  expect(res.status).toBe(202);
  const { id } = (await res.json()) as ExecutionBody;
  const started = await eventually(async () => (await marks(tag)).find((m) => m.event === "started"), { timeoutMs: 10_000 });
  const runner = replicas.get(started.replica);
  const other = [...replicas.values()].find((r) => r.name !== started.replica);
  if (!runner || !other) throw new Error("expected two replicas");
  return { id, runner, other };
}

beforeAll(async () => {
  redis = await startRedis();
  // One directory for the whole file (the replicas outlive single tests), removed in afterAll.
  dir = await mkdtemp(path.join(os.tmpdir(), "toolnexus-replicas-"));
  await writeFile(
    path.join(dir, "toolnexus.yaml"),
    [
      `plugins: [${JSON.stringify(path.join(root, "test/fixtures/executions/replica-tools.mjs"))}]`,
      'redis: { url: "${REDIS_URL}" }',
      `executions: { lostAfterMs: ${LOST_AFTER_MS} }`,
      `server: { shutdownGraceMs: ${GRACE_MS}, logLevel: warn }`,
    ].join("\n"),
  );
  await Promise.all([startReplica("a"), startReplica("b")]);
});

afterAll(async () => {
  for (const r of replicas.values()) r.child.kill("SIGKILL");
  await Promise.all([...replicas.values()].map((r) => r.exited));
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("two `toolnexus serve` replicas on one Redis", () => {
  it("submit on A, poll and stream events on B", async () => {
    const a = replicas.get("a") as Replica;
    const b = replicas.get("b") as Replica;
    const res = await submit(a.url, "wait", { arguments: { ms: 300, tag: "poll" } });
    const { id } = (await res.json()) as ExecutionBody;
    const { events } = await readEvents(b.url, id);
    expect(events.map((e) => e.event)).toEqual(["execution", "result"]);
    expect(JSON.parse(events[1]?.data ?? "")).toEqual({ output: "waited 300", isError: false });
    expect((await pollUntil(b.url, id, ["succeeded"])).result?.output).toBe("waited 300");
  });

  it("cancel on the other replica aborts the tool where it runs", async () => {
    const { id, runner, other } = await runningSomewhere(replicas.get("a") as Replica, "cancel");
    const res = await fetch(`${other.url}/executions/${id}/cancel`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "cancelled", error: { code: "CANCELLED" } });
    const aborted = await eventually(async () => (await marks("cancel")).find((m) => m.event === "aborted"));
    expect(aborted).toEqual({ replica: runner.name, tag: "cancel", event: "aborted", code: "CANCELLED" });
  });

  it("kill -9 of the running replica → failed with EXECUTION_LOST, within lostAfterMs", async () => {
    const { id, runner, other } = await runningSomewhere(replicas.get("b") as Replica, "kill");
    runner.child.kill("SIGKILL");
    await runner.exited;
    const killedAt = Date.now();
    // Polling adds its own delay on a loaded machine: the bound is lostAfterMs plus that slack.
    const lost = await pollUntil(other.url, id, ["failed"], { timeoutMs: LOST_AFTER_MS + 5000 });
    expect(lost.error).toMatchObject({ code: "EXECUTION_LOST", status: 502 });
    console.log(`EXECUTION_LOST after ${Date.now() - killedAt} ms (lostAfterMs ${LOST_AFTER_MS})`);
    await startReplica(runner.name);
  });

  it("SIGTERM of the running replica → failed with NOT_READY after the grace period", async () => {
    const { id, runner, other } = await runningSomewhere(replicas.get("a") as Replica, "term");
    runner.child.kill("SIGTERM");
    const ended = await pollUntil(other.url, id, ["failed"], { timeoutMs: GRACE_MS + 10_000 });
    expect(ended.error).toMatchObject({ code: "NOT_READY", status: 503 });
    expect(await runner.exited).toBe(0);
    expect((await marks("term")).find((m) => m.event === "aborted")).toMatchObject({ replica: runner.name, code: "NOT_READY" });
    await startReplica(runner.name);
  });

  it("Redis stopped → execution routes 503 STORE_UNAVAILABLE, sync execute 200; Redis back → executions work again", async () => {
    const a = replicas.get("a") as Replica;
    const b = replicas.get("b") as Replica;
    await redis.stop();
    const stoppedAt = Date.now();
    const down = await submit(a.url, "hello");
    expect(down.status).toBe(503);
    expect(down.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await down.json()).toMatchObject({ code: "STORE_UNAVAILABLE" });
    for (const path of ["/executions", `/executions/${"0".repeat(32)}`]) {
      const res = await fetch(`${b.url}${path}`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ code: "STORE_UNAVAILABLE" });
    }
    console.log(`STORE_UNAVAILABLE answered ${Date.now() - stoppedAt} ms into the outage`);
    const sync = await executeTool(b.url, "hello");
    expect(sync.status).toBe(200);
    expect(await sync.json()).toEqual({ output: "hello", isError: false });
    expect((await fetch(`${a.url}/readyz`)).status).toBe(200);

    await redis.restart();
    const id = await eventually(
      async () => {
        const res = await submit(b.url, "hello");
        return res.status === 202 ? ((await res.json()) as ExecutionBody).id : undefined;
      },
      { timeoutMs: 15_000, everyMs: 200 },
    );
    expect((await pollUntil(a.url, id, ["succeeded"], { timeoutMs: 15_000 })).result).toEqual({ output: "hello", isError: false });
  });
});
