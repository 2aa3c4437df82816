// `npm run bench:table`: the table bench/README.md opens with, as Markdown on stdout (progress on
// stderr). Every path of the service against the native echo plugin (or server-everything's echo
// over stdio), tracing off and on, closed loop at c=BENCH_C from this process: req/s, p50, p99,
// the server's CPU per call (read in the server, bench/stats-agent.mjs) and what that makes per
// core (1 s ÷ CPU per call); then the server's CPU per call open-loop at one rate per row that
// both tracing modes sustain (the same work, so a variant's cost is not inflated by the lower
// batching of a slower closed loop), and the issue-22 ratios read off both. Servers are
// `toolnexus serve` child processes; a redis-server is started on a free port for the Redis
// executions row. 127.0.0.1 only; bounded in time.
// Env: BENCH_ROUNDS (2; medians), BENCH_SECONDS (4), BENCH_WARMUP_SECONDS (1), BENCH_C (32),
// BENCH_RATE (2000: the open-loop rate, lowered for a row to half its untraced closed-loop
// rate when that is less), BENCH_PACED_SECONDS (3).
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { ECHO_PLUGIN, EVERYTHING, ROOT, measure, measurePaced, median, poster, startRedis, startToolnexus } from "./lib.mjs";
import { startVariants } from "./variants.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const C = Number(process.env.BENCH_C ?? 32);
const RATE = Number(process.env.BENCH_RATE ?? 2000);
const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 3);
const LIMIT_S = 600;
const guard = setTimeout(() => {
  console.error(`bench/table.mjs: not done in ${LIMIT_S} s; stopping`);
  process.exit(2);
}, LIMIT_S * 1000);
guard.unref();
const log = (line) => process.stderr.write(`${line}\n`);
const loadAvg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const ECHO_BODY = { arguments: { text: "hello" } };

/** A request through the server's pool; rejects unless the status is `status` and the body holds `expect`. */
async function send(server, opts, status, expect) {
  const res = await server.pool.request(opts);
  const text = await res.body.text();
  if (res.statusCode !== status || (expect && !text.includes(expect)))
    throw new Error(`${opts.method} ${opts.path}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
  return text;
}

const json = { "content-type": "application/json" };
const META_2026 = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const calls = {
  rest: (s, headers) => poster(s, "/tools/echo/execute", ECHO_BODY, "hello", headers),
  sse: (s) => () =>
    send(
      s,
      { path: "/tools/echo/execute", method: "POST", headers: { ...json, accept: "text/event-stream" }, body: JSON.stringify(ECHO_BODY) },
      200,
      "hello",
    ),
  mcp: (s) => () =>
    send(
      s,
      {
        path: "/mcp",
        method: "POST",
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "hello" } } }),
        // What an MCP client sends on every request after initialize (stateless: no session).
        headers: { ...json, accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
      },
      200,
      "hello",
    ),
  // A 2026-07-28 tools/call as the v2 SDK client sends it (recorded from @modelcontextprotocol/client
  // 2.4 pinned to 2026-07-28): stateless, the era in a header and in `_meta`, no initialize.
  mcp2026: (s) => () =>
    send(
      s,
      {
        path: "/mcp",
        method: "POST",
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "echo", arguments: { text: "hello" }, _meta: META_2026 },
        }),
        headers: {
          ...json,
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "echo",
        },
      },
      200,
      "hello",
    ),
  // Submit, then poll at once until terminal: the floor of what a client of executions sees.
  execution: (s) => async () => {
    let e = JSON.parse(
      await send(s, { path: "/tools/echo/executions", method: "POST", headers: json, body: JSON.stringify(ECHO_BODY) }, 202),
    );
    while (e.status === "queued" || e.status === "running")
      e = JSON.parse(await send(s, { path: `/executions/${e.id}`, method: "GET" }, 200));
    if (e.status !== "succeeded") throw new Error(`execution ${e.status}`);
  },
  stdioMcp: (s) => poster(s, "/tools/everything_echo/execute", { arguments: { message: "hello" } }, "Echo: hello"),
};

const ROWS = [
  ["REST execute, no auth", "open", (s) => calls.rest(s)],
  // Its own pair of servers: "on" exports nothing, every request unsampled (parentbased_always_off).
  ["REST execute, no auth, none sampled when on", "unsampled", (s) => calls.rest(s)],
  ["REST execute, API key", "auth", (s, v) => calls.rest(s, v.apikey)],
  ["REST execute, JWT (ES256, cached)", "auth", (s, v) => calls.rest(s, v.jwt)],
  ["`/mcp` tools/call, 2025-06-18", "open", (s) => calls.mcp(s)],
  ["`/mcp` tools/call, 2026-07-28", "open", (s) => calls.mcp2026(s)],
  ["SSE execute (`Accept: text/event-stream`)", "open", (s) => calls.sse(s)],
  ["execution submit + poll, in-process store", "open", (s) => calls.execution(s)],
  ["execution submit + poll, Redis store", "redis", (s) => calls.execution(s)],
  ["REST → stdio MCP (server-everything echo)", "open", (s) => calls.stdioMcp(s)],
];

const variants = await startVariants();
const redis = await startRedis();
const dir = await mkdtemp(path.join(tmpdir(), "tn-table-"));
const started = new Date();
const loadBefore = loadAvg();
const servers = {};
const results = {};
const paced = {};
// The open-loop rate of each row, fixed by its first untraced closed-loop round.
const rates = {};
try {
  const base = { server: { logLevel: "info" }, plugins: [ECHO_PLUGIN], executions: { maxActivePerCaller: 1000 } };
  const configs = {
    open: { ...base, mcpServers: { everything: { command: [process.execPath, EVERYTHING, "stdio"] } } },
    auth: { ...variants.variant("jwt").config, executions: base.executions },
    redis: { ...base, redis: { url: redis.url } },
    unsampled: base,
  };
  const tracing = { config: { telemetry: variants.variant("traced").config.telemetry }, env: variants.variant("traced").env };
  for (const [name, config] of Object.entries(configs)) {
    servers[`${name} off`] = await startToolnexus(dir, config, `${name}-off`);
    const env = name === "unsampled" ? variants.variant("unsampled").env : tracing.env;
    servers[`${name} on`] = await startToolnexus(dir, { ...config, ...tracing.config }, `${name}-on`, [], undefined, env);
  }
  const headers = { apikey: variants.variant("apikey").headers, jwt: variants.variant("jwt").headers };
  for (let r = 0; r < ROUNDS; r++) {
    for (const [label, server, make] of ROWS) {
      for (const mode of ["off", "on"]) {
        const s = servers[`${server} ${mode}`];
        const call = make(s, headers);
        // An older build (BENCH_CLI) may not serve a path: one probe call says so, and the row says why.
        const refused = await call().then(
          () => undefined,
          (e) => e.message.slice(0, 80),
        );
        if (refused) {
          log(`${label}, tracing ${mode}: not served by this build (${refused})`);
          continue;
        }
        const m = await measure(call, C, { seconds: SECONDS, warmup: r === 0 ? WARMUP * 2 : WARMUP, server: s });
        (results[`${label} ${mode}`] ??= []).push(m);
        log(`round ${r + 1}/${ROUNDS} ${label}, tracing ${mode}: ${m.rps.toFixed(0)} req/s, ${m.cpuUs.toFixed(1)} µs CPU/call`);
        rates[label] ??= Math.max(100, Math.min(RATE, Math.floor(m.rps / 200) * 100));
        const p = await measurePaced(call, rates[label], { seconds: PACED_SECONDS, warmup: WARMUP, server: s });
        (paced[`${label} ${mode}`] ??= []).push(p);
        if (p.skipped) log(`  open loop at ${rates[label]}/s: ${p.skipped} calls not started (256 in flight)`);
        log(`  open loop at ${rates[label]}/s: ${p.cpuUs.toFixed(1)} µs CPU/call`);
      }
    }
  }
} finally {
  await Promise.all(Object.values(servers).map((s) => s.stop()));
  await redis.stop();
  variants.close();
  await rm(dir, { recursive: true, force: true });
}

const med = (label, k, table = results) => median(table[label].map((x) => x[k]));
const commit = (() => {
  try {
    return execFileSync("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"]).toString().trim();
  } catch {
    return "unknown";
  }
})();
const redisVersion =
  execFileSync("redis-server", ["--version"])
    .toString()
    .match(/v=(\S+)/)?.[1] ?? "?";
console.log(`| path | tracing | req/s | p50 ms | p99 ms | server CPU µs/call | calls/s per server core | open loop: rate/s, CPU µs/call |`);
console.log(`|---|---|---:|---:|---:|---:|---:|---:|`);
for (const [label] of ROWS) {
  for (const mode of ["off", "on"]) {
    const key = `${label} ${mode}`;
    if (!results[key]) {
      console.log(`| ${label} | ${mode} | not served by this build | | | | | |`);
      continue;
    }
    const cpu = med(key, "cpuUs");
    console.log(
      `| ${label} | ${mode} | ${med(key, "rps").toFixed(0)} | ${med(key, "p50").toFixed(2)} | ${med(key, "p99").toFixed(2)} | ${cpu.toFixed(1)} | ${(1e6 / cpu).toFixed(0)} | ${rates[label]}: ${med(key, "cpuUs", paced).toFixed(1)} |`,
    );
  }
}

// The issue-22 targets read off the table: each ratio per round (the pair measured minutes apart
// at most), then the median with [min–max], closed loop and open loop.
const ratio = (table, a, b) => {
  if (!table[a] || !table[b]) return "n/a";
  const xs = table[a].map((x, i) => x.cpuUs / table[b][i].cpuUs);
  return `${median(xs).toFixed(2)} [${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}]`;
};
const REST = "REST execute, no auth";
const TARGETS = [
  ["tracing on, no request sampled ÷ off, REST", `${REST}, none sampled when on on`, `${REST}, none sampled when on off`, "≤ 1.1"],
  ["tracing on (every request sampled) ÷ off, REST", `${REST} on`, `${REST} off`, "≤ 1.6"],
  ["tracing on ÷ off, `/mcp` 2026-07-28", "`/mcp` tools/call, 2026-07-28 on", "`/mcp` tools/call, 2026-07-28 off", "≤ 1.6"],
  [
    "tracing on ÷ off, REST → stdio MCP",
    "REST → stdio MCP (server-everything echo) on",
    "REST → stdio MCP (server-everything echo) off",
    "≤ 1.6",
  ],
  ["API key ÷ no auth", "REST execute, API key off", `${REST} off`, "≤ 1.1"],
  ["JWT (cached) ÷ no auth", "REST execute, JWT (ES256, cached) off", `${REST} off`, "≤ 1.2"],
  ["`/mcp` 2026-07-28 ÷ REST", "`/mcp` tools/call, 2026-07-28 off", `${REST} off`, ""],
];
console.log(`\n| server CPU per call, ratio | closed loop (c=${C}) | open loop | target |`);
console.log(`|---|---:|---:|---|`);
for (const [name, a, b, target] of TARGETS) console.log(`| ${name} | ${ratio(results, a, b)} | ${ratio(paced, a, b)} | ${target} |`);
console.log(`
Conditions: toolnexus ${commit}, Node ${process.version}, ${started.toISOString().slice(0, 16)}Z; ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GB, load average ${loadBefore} before and ${loadAvg()} after.
Each server is one \`toolnexus serve\` process (one JavaScript thread) at logLevel info (the per-call line written to a file); the load generator is this process (undici Pool, 64 connections, closed loop of ${C} concurrent callers) on the same ${cpus().length} cores, so req/s is what the box does with the generator on it, and calls/s per server core (1 s ÷ the server's CPU per call) is the figure to compare across machines.
Payload \`{"arguments":{"text":"hello"}}\` to the native \`echo\` plugin (\`{"message":"hello"}\` to server-everything's \`echo\` over stdio, whose own CPU is not in the column); ${ROUNDS} round(s) of ${SECONDS} s after a warm-up, medians; open loop: ${PACED_SECONDS} s at the row's rate after ${WARMUP} s of it, started on a 1 ms tick from this process, at most 256 in flight; ratios are per round, then median [min–max]. Tracing on: OTLP/HTTP protobuf to a sink in this process, every request sampled (\`OTEL_TRACES_SAMPLER=parentbased_always_on\`), except in the row "none sampled when on" (\`parentbased_always_off\`: spans are decided, propagated, never recorded). JWT: ES256 against a local JWKS, the same token on every call (verified once, then cached). Executions: submit, then poll at once until terminal (one row = one execution); Redis ${redisVersion} on 127.0.0.1, no persistence.`);
clearTimeout(guard);
