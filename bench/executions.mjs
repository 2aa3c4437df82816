// `npm run bench:executions`: submit + poll-to-completion of the native echo (in-process store
// and Redis) against a synchronous execute, and the same round trip as an MCP task on `/mcp`
// (tools/call creating a task, tasks/get until terminal), c=1 and c=32; then 1,000 concurrent 5 s executions
// held by one replica, with its RSS before and after (BENCH_HELD=0 skips it). Each row also gives the
// server's CPU per op and the HTTP requests per op (submit or tools/call, then the polls).
// 127.0.0.1 only, every phase bounded.
import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { startRedis } from "./lib.mjs";

const here = import.meta.dirname;
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const body = JSON.stringify({ arguments: { text: "hello" } });
const json = { "content-type": "application/json" };
let requests = 0;

async function startServer(config, env = {}) {
  const child = fork(path.join(here, "toolnexus-server.mjs"), [config], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, ...env },
  });
  const { port } = await new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    // The server's CPU time so far (user + system, µs): what a row costs it, whatever else runs on the box.
    cpu: () =>
      new Promise((r) => {
        child.once("message", ({ cpu }) => r(cpu.user + cpu.system));
        child.send("cpu");
      }),
    stop: () =>
      new Promise((r) => {
        child.once("exit", r);
        child.kill("SIGTERM");
      }),
  };
}

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

async function syncCall(url) {
  requests++;
  const res = await fetch(`${url}/tools/echo/execute`, { method: "POST", headers: json, body });
  if (res.status !== 200) throw new Error(`execute ${res.status}`);
  await res.arrayBuffer();
}

// Submit, then poll at once until terminal: the latency a client sees, without Retry-After waits.
async function asyncCall(url) {
  requests++;
  const res = await fetch(`${url}/tools/echo/executions`, { method: "POST", headers: json, body });
  if (res.status !== 202) throw new Error(`submit ${res.status}`);
  let e = await res.json();
  while (e.status === "queued" || e.status === "running") {
    requests++;
    e = await (await fetch(`${url}/executions/${e.id}`)).json();
  }
  if (e.status !== "succeeded") throw new Error(`execution ${e.status}`);
}

const MODERN = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } },
};

/** One 2026-07-28 JSON-RPC request to `/mcp` as a client that opted in to the tasks extension sends it. */
async function rpc(url, method, params, name) {
  requests++;
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      ...json,
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      "mcp-name": name,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: META } }),
  });
  const reply = await res.json();
  if (!reply.result) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

// A task of the echo (the config makes its calls tasks), then tasks/get at once until terminal: the
// same round trip as asyncCall, over /mcp.
async function taskCall(url) {
  const created = await rpc(url, "tools/call", { name: "echo", arguments: { text: "hello" } }, "echo");
  const { taskId } = created;
  if (created.resultType !== "task") throw new Error(`tools/call did not create a task: ${JSON.stringify(created).slice(0, 200)}`);
  let t = created;
  while (t.status === "working") t = await rpc(url, "tasks/get", { taskId }, taskId);
  if (t.status !== "completed") throw new Error(`task ${t.status}`);
}

/** Closed loop: `c` clients call `fn` back to back for `seconds`; ops/s, p50/p99 of one op, server CPU and requests per op. */
async function closedLoop(fn, server, c) {
  const { url } = server;
  const lat = [];
  const [cpu0, requests0] = [await server.cpu(), requests];
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await fn(url);
        lat.push(performance.now() - t);
      }
    }),
  );
  const cpu = ((await server.cpu()) - cpu0) / lat.length;
  const perOp = (requests - requests0) / lat.length;
  lat.sort((a, b) => a - b);
  const pct = (p) => lat[Math.min(lat.length - 1, Math.floor(lat.length * p))].toFixed(1);
  return { ops: (lat.length / seconds).toFixed(0), p50: pct(0.5), p99: pct(0.99), cpu: cpu.toFixed(0), perOp: perOp.toFixed(2) };
}

async function held(url, pid, n = 1000, ms = 5000) {
  const before = rssMb(pid);
  const started = performance.now();
  const ids = await Promise.all(
    Array.from({ length: n }, async () => {
      const res = await fetch(`${url}/tools/sleep/executions`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ arguments: { ms } }),
      });
      if (res.status !== 202) throw new Error(`submit ${res.status}`);
      return (await res.json()).id;
    }),
  );
  const submitted = performance.now() - started;
  await new Promise((r) => setTimeout(r, 1000));
  const during = rssMb(pid);
  const running = (await (await fetch(`${url}/executions?status=running&limit=100`)).json()).executions.length;
  let pending = ids;
  while (pending.length) {
    await new Promise((r) => setTimeout(r, 250));
    const states = await Promise.all(pending.map(async (id) => [id, (await (await fetch(`${url}/executions/${id}`)).json()).status]));
    if (states.some(([, s]) => s === "failed" || s === "cancelled")) throw new Error("a held execution did not succeed");
    pending = states.filter(([, s]) => s !== "succeeded").map(([id]) => id);
  }
  const total = performance.now() - started;
  return {
    before: before.toFixed(0),
    during: during.toFixed(0),
    after: rssMb(pid).toFixed(0),
    submitted: submitted.toFixed(0),
    total: (total / 1000).toFixed(1),
    running,
  };
}

const redis = await startRedis();
const servers = {
  memory: await startServer(path.join(here, "fixtures", "executions.yaml")),
  redis: await startServer(path.join(here, "fixtures", "executions-redis.yaml"), { REDIS_URL: redis.url }),
};
try {
  console.log(`\nexecutions bench, ${seconds} s per row (${new Date().toISOString().slice(0, 10)})`);
  console.log("| path | c | ops/s | p50 ms | p99 ms | server CPU µs/op | requests/op |\n|---|---:|---:|---:|---:|---:|---:|");
  for (const c of [1, 32]) {
    for (const [name, fn, server] of [
      ["sync `POST /tools/echo/execute`", syncCall, servers.memory],
      ["submit + poll, in-process store", asyncCall, servers.memory],
      ["submit + poll, Redis store", asyncCall, servers.redis],
      ["`/mcp` task + tasks/get poll, in-process store", taskCall, servers.memory],
      ["`/mcp` task + tasks/get poll, Redis store", taskCall, servers.redis],
    ]) {
      await closedLoop(fn, server, c); // warm-up pass of the same length
      const r = await closedLoop(fn, server, c);
      console.log(`| ${name} | ${c} | ${r.ops} | ${r.p50} | ${r.p99} | ${r.cpu} | ${r.perOp} |`);
    }
  }
  if (process.env.BENCH_HELD !== "0") {
    console.log("\n1,000 concurrent `sleep 5000` executions on one replica:");
    console.log(
      "| store | RSS before MB | RSS while held MB | RSS after MB | submit all ms | all done s |\n|---|---:|---:|---:|---:|---:|",
    );
    for (const name of ["memory", "redis"]) {
      const h = await held(servers[name].url, servers[name].pid);
      console.log(`| ${name} | ${h.before} | ${h.during} | ${h.after} | ${h.submitted} | ${h.total} |`);
    }
  }
} finally {
  await Promise.all(Object.values(servers).map((s) => s.stop()));
  await redis.stop();
}
