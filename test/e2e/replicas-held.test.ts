import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { pollUntil, readEvents } from "../helpers/executions.js";
import { freePort } from "../helpers/free-port.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";
import { CLI } from "../helpers/serve-process.js";
import { tempDir } from "../helpers/temp-dir.js";
import { eventually } from "../helpers/wait.js";

// A real 2025-era upstream (SDK 1.x, stdio) that asks mid-call; each replica runs its own.
const ASKING = path.resolve(import.meta.dirname, "../fixtures/mcp/asking-server.mjs");
const LOST_AFTER_MS = 3000;

interface Replica {
  url: string;
  child: ChildProcess;
  exited: Promise<unknown>;
}

let redis: RedisServer;
let dir: string;
const replicas: Replica[] = [];

async function startReplica(): Promise<Replica> {
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, "serve", "--config", dir, "--port", String(port), "--host", "127.0.0.1"], {
    stdio: "ignore",
    env: { ...process.env, REDIS_URL: redis.url },
  });
  const exited = new Promise((r) => child.once("exit", r));
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () =>
      await fetch(`${url}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      ),
    { timeoutMs: 30_000, everyMs: 50 },
  );
  const replica = { url, child, exited };
  replicas.push(replica);
  return replica;
}

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  for (const r of replicas) r.child.kill("SIGKILL");
  await Promise.all(replicas.map((r) => r.exited));
  await redis?.stop();
});

// A promoted call has no BullMQ job whose lock would lapse: before its lease, it stayed
// input_required until it expired.
it("kill -9 of the replica holding a promoted call → failed EXECUTION_LOST on the other, its follower sees it", async () => {
  dir = await tempDir({
    "toolnexus.json": JSON.stringify({
      redis: { url: "${REDIS_URL}" },
      executions: { lostAfterMs: LOST_AFTER_MS },
      server: { logLevel: "warn" },
      mcpServers: { asker: { command: [process.execPath, ASKING] } },
    }),
  });
  const [holder, other] = await Promise.all([startReplica(), startReplica()]);
  if (!holder || !other) throw new Error("expected two replicas");
  const res = await fetch(`${holder.url}/tools/asker_ask/execute`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ arguments: { message: "Still there?" } }),
  });
  expect(res.status).toBe(202);
  const { id } = (await res.json()) as { id: string };
  await pollUntil(other.url, id, ["input_required"]);
  // The follower is live (it has had its backlog) before the replica dies.
  let following = false;
  const followed = readEvents(other.url, id, {}, (e) => (following ||= e.event === "input_required"));
  await eventually(() => following);

  holder.child.kill("SIGKILL");
  await holder.exited;
  const killedAt = Date.now();
  const lost = await pollUntil(other.url, id, ["failed"], { timeoutMs: LOST_AFTER_MS + 5000 });
  expect(lost.error).toMatchObject({ code: "EXECUTION_LOST", status: 502 });
  console.log(`promoted call EXECUTION_LOST after ${Date.now() - killedAt} ms (lostAfterMs ${LOST_AFTER_MS})`);

  const { events } = await followed;
  expect(events.map((e) => e.event)).toEqual(["execution", "input_required", "error"]);
  expect(JSON.parse(events[2]?.data ?? "{}")).toMatchObject({ code: "EXECUTION_LOST" });
});
