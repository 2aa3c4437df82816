// Two builds of toolnexus side by side, measured in alternation in one run (A, B, A, B, …), so a
// before/after survives a shared, loaded machine better than two runs minutes apart. Each build
// serves server-everything's `echo` over stdio and the native echo plugin (as `compare.mjs mcp`).
// Usage: node bench/ab.mjs <A dist/cli.js> <B dist/cli.js> [mcp|native|mcp,native] [concurrency]
// Env: BENCH_ROUNDS (5), BENCH_SECONDS (3). Prints medians [each round] per build and path.
import { mkdtemp, rm } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ECHO_PLUGIN, EVERYTHING, childPid, measure, median, poster, procCpuMs, selfCpuMs, startToolnexus } from "./lib.mjs";

const [a, b, paths = "mcp", c = "32"] = process.argv.slice(2);
if (!a || !b) throw new Error("usage: node bench/ab.mjs <A dist/cli.js> <B dist/cli.js> [mcp|native|mcp,native] [concurrency]");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const config = { server: { logLevel: "info" }, mcpServers: { everything: { command: [process.execPath, EVERYTHING, "stdio"] } }, plugins: [ECHO_PLUGIN] };
const dir = await mkdtemp(path.join(tmpdir(), "tn-ab-"));
const builds = [{ label: "A", cli: a }, { label: "B", cli: b }];
const rows = {};
try {
  for (const x of builds) x.server = await startToolnexus(dir, config, x.label, [], x.cli);
  for (let r = 0; r < ROUNDS; r++) {
    for (const x of builds) {
      for (const p of paths.split(",")) {
        const call = p === "mcp"
          ? poster(x.server, "/tools/everything_echo/execute", { arguments: { message: "hello" } }, "Echo: hello")
          : poster(x.server, "/tools/echo/execute", { arguments: { text: "hello" } }, "hello");
        const mcpServer = childPid(x.server.child.pid);
        const procs = { srvUs: () => (p === "mcp" ? procCpuMs(mcpServer) : 0), genUs: selfCpuMs };
        (rows[`${x.label} ${p}`] ??= []).push(await measure(call, Number(c), { seconds: SECONDS, warmup: r === 0 ? 2 : 0.5, server: x.server, procs }));
      }
    }
  }
} finally {
  await Promise.all(builds.map((x) => x.server?.stop()));
  await rm(dir, { recursive: true, force: true });
}
const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(`c=${c}, ${ROUNDS} rounds of ${SECONDS} s, ${new Date().toISOString().slice(0, 16)}Z, load avg ${load}; A=${a} B=${b}`);
for (const [name, runs] of Object.entries(rows)) {
  const col = (k, d) => `${k} ${median(runs.map((x) => x[k])).toFixed(d)} [${runs.map((x) => x[k].toFixed(d)).join(" ")}]`;
  console.log(`${name.padEnd(9)} ${[col("rps", 0), col("p50", 3), col("cpuUs", 1), col("gcPct", 1), col("srvUs", 1), col("genUs", 1)].join("   ")}`);
}
