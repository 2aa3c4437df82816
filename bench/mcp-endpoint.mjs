// `node bench/mcp-endpoint.mjs` (after `npm run build`): tools/call of the native echo through
// /mcp (stateless streamable HTTP, JSON responses) against POST /tools/echo/execute, on one
// toolnexus child process, c=1 and c=32, measured in one run (127.0.0.1 only, bounded).
import { readFileSync } from "node:fs";
import path from "node:path";
import { load, row, startChild } from "./autocannon.mjs";

const duration = Number(process.env.BENCH_SECONDS ?? 10);
const warmup = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const here = import.meta.dirname;
const rest = { path: "/tools/echo/execute", body: { arguments: { text: "hello" } } };
const mcp = {
  path: "/mcp",
  body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "hello" } } },
  // What an MCP client sends on every request after initialize (stateless: no session id).
  headers: { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
};

// CPU time the server process spent (user + system, ms): per request it is steadier than req/s
// on a machine shared with other work.
const cpuMs = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
};

const tn = await startChild(path.join(here, "toolnexus-server.mjs"));
try {
  console.log(`\nnative echo, ${duration} s per run after ${warmup} s warm-up (${new Date().toISOString().slice(0, 10)})`);
  for (const connections of [1, 32]) {
    const run = async (t, seconds) => {
      const before = cpuMs(tn.pid);
      const r = await load(`${tn.url}${t.path}`, t.body, { connections, duration: seconds, headers: t.headers });
      return { ...r, cpuUs: ((cpuMs(tn.pid) - before) * 1000) / r.total };
    };
    await run(rest, warmup);
    await run(mcp, warmup);
    const r = await run(rest, duration);
    const m = await run(mcp, duration);
    console.log(`c=${connections}`);
    console.log(`${row("POST /tools/echo/execute", r)}   server CPU ${r.cpuUs.toFixed(0)} µs/req`);
    console.log(`${row("/mcp tools/call", m)}   server CPU ${m.cpuUs.toFixed(0)} µs/req`);
    console.log(`ratio /mcp ÷ REST (req/s): ${(m.rps / r.rps).toFixed(2)}   (target ≥ 0.70)`);
  }
} finally {
  await tn.stop();
}
