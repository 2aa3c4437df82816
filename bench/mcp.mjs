// MCP echo through toolnexus (POST /tools/everything_echo/execute) versus a direct MCP client
// call (the v2 SDK's, as the gateway's) to the same kind of stdio server (server-everything);
// then the same over streamable HTTP (server-everything in its streamableHttp mode, attached
// as a remote server, `url:`). Uses the built dist/: run `npm run build` first. 127.0.0.1
// only; every phase is time-bounded; children are stopped on exit. Prints p50 / p99 / req/s at
// concurrency 1 and 32 and the ratios. `npm run bench mcp mcphttp` alternates them over rounds.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Pool } from "undici";
import { directClient, startEverythingHttp } from "./mcp-hop.mjs";

const root = path.resolve(import.meta.dirname, "..");
const CLI = path.join(root, "dist/bundle/cli.js");
const EVERYTHING = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const SECONDS = Number(process.env.BENCH_MCP_SECONDS ?? 5);
// The MCP server and the service need a few seconds of JIT warm-up before latencies settle.
const WARMUP_SECONDS = Number(process.env.BENCH_MCP_WARMUP_SECONDS ?? 3);
const CONCURRENCY = [1, 32];
const HARD_LIMIT_MS = (SECONDS + WARMUP_SECONDS) * 8 * 1000 + 60_000;

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer()
      .listen(0, "127.0.0.1", () => {
        const { port } = s.address();
        s.close(() => resolve(port));
      })
      .on("error", reject);
  });

/** Runs `call` from `concurrency` closed-loop workers for `seconds`; latencies in ms. */
async function drive(call, concurrency, seconds) {
  const latencies = [];
  const end = performance.now() + seconds * 1000;
  let errors = 0;
  const worker = async () => {
    while (performance.now() < end) {
      const t = performance.now();
      try {
        await call();
        latencies.push(performance.now() - t);
      } catch {
        errors++;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  if (errors > 0) throw new Error(`${errors} calls failed`);
  latencies.sort((a, b) => a - b);
  const q = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
  return { rps: latencies.length / elapsed, p50: q(0.5), p99: q(0.99), n: latencies.length };
}

async function measure(call, concurrency) {
  await drive(call, concurrency, WARMUP_SECONDS);
  return drive(call, concurrency, SECONDS);
}

async function startToolnexus(dir, remoteUrl) {
  const port = await freePort();
  const config = path.join(dir, "toolnexus.json");
  await writeFile(
    config,
    JSON.stringify({
      // Like bench/run.mjs: warn level, so the per-call log line is not what is measured.
      server: { host: "127.0.0.1", port, maxConcurrent: 1024, logLevel: "warn" },
      mcpServers: { everything: { command: [process.execPath, EVERYTHING, "stdio"] }, remote: { url: remoteUrl } },
      // The native echo is the reference for the REST pipeline's own cost.
      plugins: [path.join(root, "bench/fixtures/plugins/echo.mjs")],
    }),
  );
  const child = spawn(process.execPath, [CLI, "serve", "--config", config], { stdio: ["ignore", "ignore", "inherit"] });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`toolnexus exited with ${child.exitCode}`);
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error("toolnexus did not become ready in 30 s");
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stop: () =>
      new Promise((r) => {
        if (child.exitCode !== null) return r();
        child.once("exit", r);
        child.kill("SIGTERM");
      }),
  };
}

const fmt = (name, r) =>
  `${name.padEnd(40)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(2).padStart(7)} ms   p99 ${r.p99.toFixed(2).padStart(7)} ms`;

const dir = await mkdtemp(path.join(tmpdir(), "tn-bench-mcp-"));
const guard = setTimeout(() => {
  console.error("bench/mcp.mjs: hard time limit reached");
  process.exit(2);
}, HARD_LIMIT_MS);
guard.unref();
let tn;
let direct;
let directHttp;
let pool;
let everythingHttp;
try {
  everythingHttp = await startEverythingHttp();
  tn = await startToolnexus(dir, everythingHttp.url);
  pool = new Pool(tn.url, { connections: Math.max(...CONCURRENCY) });
  const body = JSON.stringify({ arguments: { message: "hello" } });
  const viaRest = async () => {
    const res = await pool.request({
      path: "/tools/everything_echo/execute",
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200 || !text.includes("Echo: hello")) throw new Error(`HTTP ${res.statusCode}`);
  };
  const nativeBody = JSON.stringify({ arguments: { text: "hello" } });
  const viaRestNative = async () => {
    const res = await pool.request({
      path: "/tools/echo/execute",
      method: "POST",
      headers: { "content-type": "application/json" },
      body: nativeBody,
    });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
  };
  const viaRemote = async () => {
    const res = await pool.request({
      path: "/tools/remote_echo/execute",
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200 || !text.includes("Echo: hello")) throw new Error(`HTTP ${res.statusCode}`);
  };
  direct = await directClient();
  directHttp = await directClient(everythingHttp.url);
  const viaSdk = direct.call;

  console.log(`\nMCP echo (server-everything over stdio), ${SECONDS} s per run (${new Date().toISOString().slice(0, 10)})`);
  for (const c of CONCURRENCY) {
    const rest = await measure(viaRest, c);
    const sdk = await measure(viaSdk, c);
    const native = await measure(viaRestNative, c);
    console.log(fmt(`c=${c}  REST POST /tools/everything_echo`, rest));
    console.log(fmt(`c=${c}  direct v2 SDK callTool`, sdk));
    console.log(fmt(`c=${c}  (reference) REST native echo`, native));
    console.log(
      `c=${c}  ratio REST p50 ÷ (native p50 + direct p50): ${(rest.p50 / (native.p50 + sdk.p50)).toFixed(2)}   (target ≤ 1.15 at c=1)   req/s ratio ${(rest.rps / sdk.rps).toFixed(2)}`,
    );
  }
  console.log(`\nMCP echo (server-everything over streamable HTTP), ${SECONDS} s per run`);
  for (const c of CONCURRENCY) {
    const rest = await measure(viaRemote, c);
    const sdk = await measure(directHttp.call, c);
    console.log(fmt(`c=${c}  REST POST /tools/remote_echo`, rest));
    console.log(fmt(`c=${c}  direct v2 SDK callTool (HTTP)`, sdk));
    console.log(`c=${c}  ratio req/s REST ÷ direct: ${(rest.rps / sdk.rps).toFixed(2)}   (target ≥ 0.5 at c=1)`);
  }
} finally {
  await direct?.close();
  await directHttp?.close();
  await pool?.close().catch(() => {});
  await tn?.stop();
  await everythingHttp?.stop();
  await rm(dir, { recursive: true, force: true });
  clearTimeout(guard);
}
