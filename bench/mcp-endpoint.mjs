// `npm run build && node bench/mcp-endpoint.mjs`: tools/call of the native echo through /mcp
// (stateless streamable HTTP, JSON answers) in both protocol eras against POST
// /tools/echo/execute, c=1 and c=32, on one toolnexus child process per build (127.0.0.1 only,
// bounded). BENCH_BEFORE=<another checkout, built> runs that build too, alternated with this
// one round by round. Printed per build: req/s and the server's CPU per call (medians of the
// rounds, [min–max]); per round the ratios /mcp ÷ REST in req/s and in calls per CPU second
// (REST's CPU per call ÷ /mcp's: what one core gives, the honest figure on a shared machine).
import { loadavg } from "node:os";
import path from "node:path";
import { load, startChild } from "./autocannon.mjs";

const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const warmup = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const here = import.meta.dirname;
const envelope = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
};
const args = { text: "hello" };
// What an MCP client sends on every call (stateless: no session id): a 2025-era request after
// initialize, and a 2026-07-28 one with its per-request envelope and standard headers.
const paths = {
  rest: { path: "/tools/echo/execute", body: { arguments: args } },
  "mcp 2025": {
    path: "/mcp",
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: args } },
    headers: { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
  },
  "mcp 2026": {
    path: "/mcp",
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: args, _meta: envelope } },
    headers: {
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "echo",
    },
  },
};

const builds = [{ name: "this build", env: {} }];
if (process.env.BENCH_BEFORE) builds.push({ name: "before", env: { BENCH_DIST: path.resolve(process.env.BENCH_BEFORE, "dist/index.js") } });
const servers = [];
for (const b of builds) servers.push(await startChild(path.join(here, "toolnexus-server.mjs"), [], b.env));

const run = async (srv, t, connections, s) => {
  const before = await srv.cpu();
  const r = await load(`${srv.url}${t.path}`, t.body, { connections, duration: s, headers: t.headers });
  return { ...r, cpuUs: ((await srv.cpu()) - before) / r.total };
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs, d = 0) => `${median(xs).toFixed(d)} [${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)}]`;

// results[build][c][path] = [{ rps, cpuUs }, ...] one per round.
const results = builds.map(() => ({ 1: {}, 32: {} }));
try {
  console.log(
    `/mcp vs REST, native echo: ${rounds} rounds of ${seconds} s per run after a ${warmup} s warm-up, ${new Date().toISOString()}, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  for (const srv of servers) for (const c of [1, 32]) for (const t of Object.values(paths)) await run(srv, t, c, warmup);
  for (let round = 0; round < rounds; round++) {
    // Alternate which build goes first.
    const order = round % 2 === 0 ? servers.keys() : [...servers.keys()].reverse();
    for (const i of order)
      for (const c of [1, 32])
        for (const [name, t] of Object.entries(paths)) (results[i][c][name] ??= []).push(await run(servers[i], t, c, seconds));
  }
  for (const [i, b] of builds.entries()) {
    console.log(`\n## ${b.name}`);
    for (const c of [1, 32]) {
      const r = results[i][c];
      for (const name of Object.keys(paths))
        console.log(
          `c=${String(c).padEnd(3)} ${name.padEnd(9)} req/s ${fmt(r[name].map((x) => x.rps))}   server CPU µs/call ${fmt(
            r[name].map((x) => x.cpuUs),
            1,
          )}`,
        );
      for (const name of ["mcp 2025", "mcp 2026"]) {
        const rps = r[name].map((x, k) => x.rps / r.rest[k].rps);
        const cpu = r[name].map((x, k) => r.rest[k].cpuUs / x.cpuUs);
        console.log(
          `c=${String(c).padEnd(3)} ${name} ÷ REST: req/s ${fmt(rps, 2)}   calls per CPU second ${fmt(cpu, 2)}   (target ≥ 0.70)`,
        );
      }
    }
  }
  if (builds.length === 2)
    for (const c of [1, 32])
      for (const name of ["mcp 2025", "mcp 2026"]) {
        const ratio = results[0][c][name].map((x, k) => x.cpuUs / results[1][c][name][k].cpuUs);
        console.log(`c=${c} ${name}: CPU per call this build ÷ before ${fmt(ratio, 2)}`);
      }
  console.log(
    `\nload average after: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
} finally {
  await Promise.all(servers.map((s) => s.stop()));
}
