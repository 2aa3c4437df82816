// `npm run bench:executions`: submit + poll-to-completion of the native echo (in-process store
// and Redis) against a synchronous execute, c=1 and c=32; then 1,000 concurrent 5 s executions
// held by one replica, with its RSS before and after. 127.0.0.1 only, every phase bounded.
import { fork, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { performance } from "node:perf_hooks";

const here = import.meta.dirname;
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const body = JSON.stringify({ arguments: { text: "hello" } });
const json = { "content-type": "application/json" };

async function freePort() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

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
    stop: () =>
      new Promise((r) => {
        child.once("exit", r);
        child.kill("SIGTERM");
      }),
  };
}

async function startRedis() {
  const port = await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  for (let i = 0; i < 200; i++) {
    const ok = await new Promise((r) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.end();
        r(true);
      });
      s.once("error", () => r(false));
    });
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise((r) => {
        child.once("exit", r);
        child.kill("SIGTERM");
      }),
  };
}

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

async function syncCall(url) {
  const res = await fetch(`${url}/tools/echo/execute`, { method: "POST", headers: json, body });
  if (res.status !== 200) throw new Error(`execute ${res.status}`);
  await res.arrayBuffer();
}

// Submit, then poll at once until terminal: the latency a client sees, without Retry-After waits.
async function asyncCall(url) {
  const res = await fetch(`${url}/tools/echo/executions`, { method: "POST", headers: json, body });
  if (res.status !== 202) throw new Error(`submit ${res.status}`);
  let e = await res.json();
  while (e.status === "queued" || e.status === "running") e = await (await fetch(`${url}/executions/${e.id}`)).json();
  if (e.status !== "succeeded") throw new Error(`execution ${e.status}`);
}

/** Closed loop: `c` clients call `fn` back to back for `seconds`; ops/s and p50/p99 of one op. */
async function closedLoop(fn, url, c) {
  const lat = [];
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
  lat.sort((a, b) => a - b);
  const pct = (p) => lat[Math.min(lat.length - 1, Math.floor(lat.length * p))].toFixed(1);
  return { ops: (lat.length / seconds).toFixed(0), p50: pct(0.5), p99: pct(0.99) };
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
  console.log("| path | c | ops/s | p50 ms | p99 ms |\n|---|---:|---:|---:|---:|");
  for (const c of [1, 32]) {
    for (const [name, fn, url] of [
      ["sync `POST /tools/echo/execute`", syncCall, servers.memory.url],
      ["submit + poll, in-process store", asyncCall, servers.memory.url],
      ["submit + poll, Redis store", asyncCall, servers.redis.url],
    ]) {
      await closedLoop(fn, url, c); // warm-up pass of the same length
      const r = await closedLoop(fn, url, c);
      console.log(`| ${name} | ${c} | ${r.ops} | ${r.p50} | ${r.p99} |`);
    }
  }
  console.log("\n1,000 concurrent `sleep 5000` executions on one replica:");
  console.log("| store | RSS before MB | RSS while held MB | RSS after MB | submit all ms | all done s |\n|---|---:|---:|---:|---:|---:|");
  for (const name of ["memory", "redis"]) {
    const h = await held(servers[name].url, servers[name].pid);
    console.log(`| ${name} | ${h.before} | ${h.during} | ${h.after} | ${h.submitted} | ${h.total} |`);
  }
} finally {
  await Promise.all(Object.values(servers).map((s) => s.stop()));
  await redis.stop();
}
