// Shared helpers of the benchmarks: servers in child processes that report their own CPU and
// GC (bench/stats-agent.mjs), closed-loop load, and medians with their spread.
import { spawn } from "node:child_process";
import { openSync, closeSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer as httpServer } from "node:http";
import { connect, createServer } from "node:net";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { Pool } from "undici";

export const ROOT = path.resolve(import.meta.dirname, "..");
// BENCH_CLI runs another build (e.g. an older commit's dist/cli.js) for a before/after figure.
export const CLI = process.env.BENCH_CLI ?? path.join(ROOT, "dist/bundle/cli.js");
export const AGENT = path.join(ROOT, "bench/stats-agent.mjs");
export const EVERYTHING = path.join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const ECHO_PLUGIN = path.join(ROOT, "bench/fixtures/plugins/echo.mjs");

/** A free TCP port on 127.0.0.1. */
export const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer()
      .listen(0, "127.0.0.1", () => {
        const { port } = s.address();
        s.close(() => resolve(port));
      })
      .on("error", reject);
  });

/** A server child process with its own stats channel. */
class Child {
  constructor(child, url, startedAt, readyAt) {
    Object.assign(this, { child, url, readyMs: readyAt - startedAt, pool: new Pool(url, { connections: 64 }) });
  }

  /** The child's CPU ms, GC pauses and memory, read in the child (stats-agent.mjs). */
  stats() {
    return new Promise((resolve, reject) => {
      const onMessage = (m) => {
        if (!m?.stats) return;
        this.child.off("message", onMessage);
        resolve(m.stats);
      };
      this.child.on("message", onMessage);
      this.child.send("stats", (err) => err && reject(err));
    });
  }

  resetGc() {
    this.child.send("reset-gc");
  }

  async stop() {
    await this.pool.close().catch(() => {});
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    await new Promise((r) => {
      this.child.once("exit", r);
      this.child.kill("SIGTERM");
    });
  }
}

/** Spawns `node --import stats-agent args…` and waits until `probe(url)` answers (polled every 5 ms). */
async function spawnServer(args, port, { ready = "/readyz", logFile, env } = {}) {
  const out = logFile ? openSync(logFile, "a") : "ignore";
  const startedAt = performance.now();
  const child = spawn(process.execPath, ["--import", AGENT, ...args], {
    stdio: ["ignore", out, "inherit", "ipc"],
    env: { ...process.env, ...env },
  });
  if (typeof out === "number") closeSync(out);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(" ")} exited with ${child.exitCode}`);
    if (
      await fetch(`${url}${ready}`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error(`${args.join(" ")} not ready in 60 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return new Child(child, url, startedAt, performance.now());
}

/** The bare Fastify floor: `POST /echo` returning what the echo tool returns. */
export async function startBare(nodeArgs = [], logFile) {
  const port = await freePort();
  return spawnServer([...nodeArgs, path.join(ROOT, "bench/bare-server.mjs"), String(port)], port, { ready: "/healthz", logFile });
}

/** `toolnexus serve` (the CLI, as deployed; `cli` another build's) on a temp config, `env` added to its environment; log lines go to `dir/<name>.log`. */
export async function startToolnexus(dir, config, name = "toolnexus", nodeArgs = [], cli = CLI, env = {}) {
  const port = await freePort();
  const file = path.join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify({ ...config, server: { host: "127.0.0.1", port, maxConcurrent: 1024, ...config.server } }));
  return spawnServer([...nodeArgs, cli, "serve", "--config", file], port, { logFile: path.join(dir, `${name}.log`), env });
}

/** Runs `call` from `concurrency` closed-loop workers for `seconds`; latencies in ms. */
export async function drive(call, concurrency, seconds) {
  const latencies = [];
  const end = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t = performance.now();
      await call();
      latencies.push(performance.now() - t);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
  return { rps: latencies.length / elapsed, p50: q(0.5), p99: q(0.99), n: latencies.length };
}

/**
 * Runs `call` open-loop at `rate` calls per second for `seconds` (started on a 1 ms tick,
 * whatever the answers do), then waits for the last answers; at most `maxInFlight` at once
 * (a start past that is counted in `skipped`, never queued). The load a server sees in
 * production: at a rate it sustains, its CPU per call is that of the same work whatever a
 * variant costs, where a closed loop at saturation runs a slower variant at fewer calls per
 * second and so with less batching per event-loop turn.
 */
export async function pace(call, rate, seconds, maxInFlight = 256) {
  let started = 0;
  let inFlight = 0;
  let skipped = 0;
  let failed;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  const settled = () => inFlight--;
  for (;;) {
    const now = performance.now();
    const due = Math.floor(((Math.min(now, end) - t0) * rate) / 1000);
    for (; started < due; started++) {
      if (inFlight >= maxInFlight) {
        skipped++;
        continue;
      }
      inFlight++;
      call().then(settled, (e) => {
        failed ??= e;
        settled();
      });
    }
    if (now >= end) break;
    await new Promise((r) => setTimeout(r, 1));
  }
  while (inFlight > 0) await new Promise((r) => setTimeout(r, 2));
  if (failed) throw failed;
  return { n: started - skipped, skipped, seconds: (performance.now() - t0) / 1000 };
}

/** The server's CPU µs per call of an open-loop run at `rate` calls/s ({@link pace}), after `warmup` s of the same. */
export async function measurePaced(call, rate, { seconds, warmup, server }) {
  if (warmup > 0) await pace(call, rate, warmup);
  const before = await server.stats();
  const r = await pace(call, rate, seconds);
  const after = await server.stats();
  return { ...r, rate, cpuUs: ((after.cpuMs - before.cpuMs) * 1000) / r.n };
}

/** A POST of `body` (with `headers`) to `route` through the server's pool; rejects on a non-200 answer. */
export function poster(server, route, body, expect, headers = {}) {
  const payload = JSON.stringify(body);
  const all = { "content-type": "application/json", ...headers };
  return async () => {
    const res = await server.pool.request({ path: route, method: "POST", headers: all, body: payload });
    const text = await res.body.text();
    if (res.statusCode !== 200 || (expect && !text.includes(expect)))
      throw new Error(`${route}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
  };
}

/** CPU ms (user + system) a process has used so far, from /proc (Linux; clock ticks of 10 ms). */
export function procCpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** This process's own CPU ms (the load generator, and a direct MCP SDK client when it runs one). */
export const selfCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The pid of the first child of `pid` (a stdio MCP server the gateway spawned), from /proc. */
export function childPid(pid) {
  const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
  return kids.length ? Number(kids[0]) : undefined;
}

/**
 * One measured run: warm-up, then `seconds` of load, with the server's own CPU per request,
 * GC share of that CPU and its longest young-generation pause when `server` is given. `procs`
 * maps a column name to a function returning some process's CPU ms: each column is that
 * process's CPU µs per call over the measured window (e.g. the MCP server, the load generator).
 */
export async function measure(call, concurrency, { seconds, warmup, server, procs = {} }) {
  if (warmup > 0) await drive(call, concurrency, warmup);
  const before = server ? await server.stats() : undefined;
  server?.resetGc();
  const procsBefore = Object.fromEntries(Object.entries(procs).map(([k, f]) => [k, f()]));
  const r = await drive(call, concurrency, seconds);
  const perCall = Object.fromEntries(Object.entries(procs).map(([k, f]) => [k, ((f() - procsBefore[k]) * 1000) / r.n]));
  if (!server) return { ...r, ...perCall };
  const after = await server.stats();
  const cpuMs = after.cpuMs - before.cpuMs;
  return {
    ...r,
    cpuUs: (cpuMs * 1000) / r.n,
    gcPct: (100 * after.gc.ms) / cpuMs,
    maxScavengeMs: after.gc.maxScavengeMs,
    rssMb: after.rss / 1048576,
    ...perCall,
  };
}

/** Median of numbers. */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** "median [min–max]" with `digits` decimals. */
export function spread(xs, digits = 2) {
  const f = (x) => x.toFixed(digits);
  return xs.length === 1 ? f(xs[0]) : `${f(median(xs))} [${f(Math.min(...xs))}–${f(Math.max(...xs))}]`;
}

/** A local HTTP server answering every request with `answer(req, res)`; `server.hits` counts requests. */
export async function serveLocal(answer) {
  const server = httpServer((req, res) => {
    server.hits++;
    req.resume();
    req.on("end", () => answer(req, res));
  });
  server.hits = 0;
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}

/**
 * An ES256 key served as a JWKS from this process (issuer `bench-idp`, kid `bench`): `jwksUri`,
 * `sign(sub, audience)` → a 2 h token of group `bench`, and `close()`.
 */
export async function startJwks() {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "bench", alg: "ES256", use: "sig" };
  const jwks = await serveLocal((_req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] })),
  );
  return {
    jwksUri: `${jwks.url}/jwks.json`,
    sign: (sub, audience) =>
      new SignJWT({ sub, groups: ["bench"] })
        .setProtectedHeader({ alg: "ES256", kid: "bench" })
        .setIssuer("bench-idp")
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime("2h")
        .sign(privateKey),
    close: () => jwks.server.close(),
  };
}

/** A redis-server without persistence on a free port (as test/helpers/redis.ts starts it): `url`, `stop()`. */
export async function startRedis() {
  const port = await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  const up = () =>
    new Promise((r) => {
      const s = connect(port, "127.0.0.1", () => {
        s.end();
        r(true);
      });
      s.once("error", () => r(false));
    });
  for (let i = 0; !(await up()); i++) {
    if (i > 100 || child.exitCode !== null) throw new Error("redis-server did not start (is it installed?)");
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
