// The catalog at scale: upstream MCP servers of 100 tools each (test/fixtures/mcp/many-servers.mjs,
// every server in one child process, streamable HTTP on 127.0.0.1) behind `toolnexus serve`.
// Per size: spawn → first 200 of /readyz, RSS 1 s after the first requests (after a full GC) and
// once idle (V8's memory reducer has run: no forced GC), `GET /tools?q=` and `GET /tools`
// p50 at c=1, a paginated `/mcp` tools/list walked to its end (2026-07-28, 500 per page),
// then 1,000 API keys of 1,000 distinct tool sets each listing and searching once: RSS right
// after them (after a full GC in the server) and, once idle again, above the first idle figure.
// Usage: npm run build && [BENCH_NODE_ARGS=…] [BENCH_TOOLS_PER_SERVER=100] node bench/scale.mjs [servers=10,50,100] [n=100]
// (BENCH_TOOLS_PER_SERVER=10 with 100 servers against the default with 10: 1,000 tools either
// way, so the difference is what 90 more servers cost.)
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { median, procCpuMs, ROOT, startToolnexus } from "./lib.mjs";

const [sizesArg = "10,50,100", nArg = "100"] = process.argv.slice(2);
const sizes = sizesArg.split(",").map(Number);
const N = Number(nArg);
const CALLERS = 1000;
const VERBS = ["create", "list", "get", "update", "delete", "search", "export", "archive", "restore", "sync"];
const QUERIES = ["create an issue", "list pods", "delete old invoices", "search messages", "restore archived file", "sync customer"];
const MB = 1048576;
const TOOLS_PER_SERVER = process.env.BENCH_TOOLS_PER_SERVER ?? "100";
// Extra flags for the server process (e.g. `--max-semi-space-size=4`), space-separated.
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);

const fixture = spawn(
  process.execPath,
  [path.join(ROOT, "test/fixtures/mcp/many-servers.mjs"), String(Math.max(...sizes)), TOOLS_PER_SERVER],
  {
    stdio: ["ignore", "pipe", "inherit"],
  },
);
const { base } = JSON.parse(await new Promise((r) => createInterface({ input: fixture.stdout }).once("line", r)));

const keyOf = (i) => `bench-caller-key-${String(i).padStart(6, "0")}`;
// Caller i sees one server's tools and one verb across all servers: 1,000 distinct tool sets.
const apiKeys = [
  { id: "all", key: keyOf(CALLERS), tools: ["*"] },
  ...Array.from({ length: CALLERS }, (_, i) => ({
    id: `c${i}`,
    key: keyOf(i),
    tools: [`s${i % 100}_*`, `*_${VERBS[Math.floor(i / 100) % 10]}_*`],
  })),
];

async function timed(url, key, init = {}) {
  const t = performance.now();
  const res = await fetch(url, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${body.slice(0, 200)}`);
  return { ms: performance.now() - t, body };
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
/** One whole `tools/list` walk over its pages: ms, pages, tools. */
async function listAll(url, key) {
  const t = performance.now();
  let cursor;
  let pages = 0;
  let tools = 0;
  do {
    const { body } = await timed(`${url}/mcp`, key, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/list",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { ...(cursor ? { cursor } : {}), _meta: META } }),
    });
    const { result } = JSON.parse(body);
    pages++;
    tools += result.tools.length;
    cursor = result.nextCursor;
  } while (cursor);
  return { ms: performance.now() - t, pages, tools };
}

const settle = (ms = 1000) => new Promise((r) => setTimeout(r, ms));
/** The server's stats without forcing a GC. */
const stats = (server, message = "stats") =>
  new Promise((resolve) => {
    const onMessage = (m) => {
      if (!m?.stats) return;
      server.child.off("message", onMessage);
      resolve(m.stats);
    };
    server.child.on("message", onMessage);
    server.child.send(message);
  });
/**
 * RSS of the untouched server, read each second without forcing a GC, once it has held within
 * 1 MB for 5 reads (at most 60 s): what an idle replica shows after V8's memory reducer has given
 * back the young generation and the pages start-up grew (it runs some 10-20 s after the last
 * major GC when nothing allocates).
 */
async function idleRss(server) {
  const reads = [];
  const t = performance.now();
  while (performance.now() - t < 60_000) {
    await settle();
    reads.push((await stats(server)).rss);
    const last = reads.slice(-5);
    if (last.length === 5 && Math.max(...last) - Math.min(...last) < MB && reads[0] - last[4] > 0) break;
  }
  return { rss: reads.at(-1), afterS: (performance.now() - t) / 1000 };
}
/** The server's stats after a full GC: what stays reachable, not what awaits collection. */
const collected = (server) => stats(server, "stats-gc");
const rows = [];
for (const servers of sizes) {
  const dir = await mkdtemp(path.join(tmpdir(), "toolnexus-scale-"));
  const mcpServers = Object.fromEntries(Array.from({ length: servers }, (_, i) => [`s${i}`, { url: `${base}/s${i}/mcp` }]));
  const fixtureCpu = procCpuMs(fixture.pid);
  const server = await startToolnexus(dir, { mcpServers, auth: { apiKeys }, server: { logLevel: "warn" } }, "scale", [
    "--expose-gc",
    ...NODE_ARGS,
  ]);
  const startCpu = { server: (await server.stats()).cpuMs, fixture: procCpuMs(fixture.pid) - fixtureCpu };
  const all = keyOf(CALLERS);
  const listed = JSON.parse((await timed(`${server.url}/tools`, all)).body).tools.length;
  await timed(`${server.url}/tools?q=issue`, all);
  await settle();
  const early = await collected(server);
  const idle = await idleRss(server);
  const q = (i) => `${server.url}/tools?q=${encodeURIComponent(QUERIES[i % QUERIES.length])}&limit=20`;
  for (let i = 0; i < 20; i++) await Promise.all([timed(q(i), all), timed(`${server.url}/tools`, all)]);
  const search = [];
  const list = [];
  for (let i = 0; i < N; i++) search.push((await timed(q(i), all)).ms);
  for (let i = 0; i < N; i++) list.push((await timed(`${server.url}/tools`, all)).ms);
  const walks = [];
  let walk;
  for (let i = 0; i < 10; i++) walks.push((walk = await listAll(server.url, all)).ms);
  const warm = await collected(server);
  for (let i = 0; i < CALLERS; i++) {
    await timed(`${server.url}/tools`, keyOf(i));
    await timed(q(i), keyOf(i));
  }
  await settle();
  const callers = await collected(server);
  const callersIdle = await idleRss(server);
  rows.push({
    tools: listed,
    servers,
    readyMs: server.readyMs,
    startCpu,
    earlyMb: early.rss / MB,
    idleMb: idle.rss / MB,
    idleAfterS: idle.afterS,
    searchP50: median(search),
    listP50: median(list),
    walkP50: median(walks),
    pages: walk.pages,
    warmMb: warm.rss / MB,
    callersMb: callers.rss / MB,
    callersIdleMb: (callersIdle.rss - idle.rss) / MB,
    heapMb: (callers.heapUsed - warm.heapUsed) / MB,
  });
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
fixture.kill();

const f = (x, d = 1) => x.toFixed(d);
console.log(
  "| tools (servers) | spawn → ready ms (CPU ms: gateway, upstreams) | RSS after the first requests MB | idle RSS MB (s idle) | `?q=` p50 ms | `GET /tools` p50 ms | `tools/list` walk p50 ms (pages) | RSS after the timed runs MB | 1,000 callers: RSS after them MB | their idle RSS above idle MB (live heap) |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const r of rows)
  console.log(
    `| ${r.tools} (${r.servers}) | ${f(r.readyMs, 0)} (${f(r.startCpu.server, 0)}, ${f(r.startCpu.fixture, 0)}) | ${f(r.earlyMb)} | ${f(r.idleMb)} (${f(r.idleAfterS, 0)}) | ${f(r.searchP50, 2)} | ${f(r.listP50, 2)} | ${f(r.walkP50, 1)} (${r.pages}) | ${f(r.warmMb)} | ${f(r.callersMb)} | ${f(r.callersIdleMb)} (${f(r.heapMb)}) |`,
  );
console.log(
  `\nNode ${process.version}, ${new Date().toISOString()}, load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}; c=1, ${N} requests per route after 20 of each, 10 tools/list walks.`,
);
