// Two builds of toolnexus side by side, measured in alternation in one run (A, B, A, B, …), so a
// before/after survives a shared, loaded machine better than two runs minutes apart. Paths:
//   mcp, native   server-everything's `echo` over stdio and the native echo plugin (as `compare.mjs mcp`)
//   none, apikey, jwt, traced, sampled10, unsampled
//                 the native echo behind no auth / an API key / a JWT, or with tracing on and every
//                 request sampled / 10 % / none (bench/variants.mjs); each its own pair of servers
// Usage: node bench/ab.mjs <A dist/cli.js> <B dist/cli.js> [path,path,…] [concurrency]
// Env: BENCH_ROUNDS (5), BENCH_SECONDS (3), BENCH_RATE (unset: closed loop at the concurrency;
// a number: open loop at that many calls/s, every variant at the same rate, CPU per call only).
// Prints medians [each round] per build and path, and for the variants each one's CPU per call
// ÷ that of `none` in the same build and round.
import { mkdtemp, rm } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ECHO_PLUGIN, EVERYTHING, childPid, measure, measurePaced, median, poster, procCpuMs, selfCpuMs, startToolnexus } from "./lib.mjs";
import { startVariants } from "./variants.mjs";

const [a, b, paths = "mcp", c = "32"] = process.argv.slice(2);
if (!a || !b) throw new Error("usage: node bench/ab.mjs <A dist/cli.js> <B dist/cli.js> [path,…] [concurrency]");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;
const stdio = {
  server: { logLevel: "info" },
  mcpServers: { everything: { command: [process.execPath, EVERYTHING, "stdio"] } },
  plugins: [ECHO_PLUGIN],
};
const dir = await mkdtemp(path.join(tmpdir(), "tn-ab-"));
const variants = await startVariants();
const builds = [
  { label: "A", cli: a },
  { label: "B", cli: b },
];
const rows = {};
// Paths that share one server per build run together; each variant has servers of its own. All
// servers run from the start and every round visits each group and build, so ratios between
// variants of one round were measured minutes apart at most.
const groups = {};
for (const p of paths.split(",")) (groups[p === "mcp" || p === "native" ? "stdio" : p] ??= []).push(p);
const servers = {};
try {
  for (const group of Object.keys(groups)) {
    const v = group === "stdio" ? { config: stdio, headers: {}, env: {} } : variants.variant(group);
    for (const x of builds)
      servers[`${x.label} ${group}`] = { v, server: await startToolnexus(dir, v.config, `${x.label}-${group}`, [], x.cli, v.env) };
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const [group, members] of Object.entries(groups)) {
      for (const x of builds) {
        const { v, server } = servers[`${x.label} ${group}`];
        for (const p of members) {
          const call =
            p === "mcp"
              ? poster(server, "/tools/everything_echo/execute", { arguments: { message: "hello" } }, "Echo: hello")
              : poster(server, "/tools/echo/execute", { arguments: { text: "hello" } }, "hello", v.headers);
          const mcpServer = p === "mcp" ? childPid(server.child.pid) : undefined;
          const procs = { srvUs: () => (mcpServer ? procCpuMs(mcpServer) : 0), genUs: selfCpuMs };
          const warmup = r === 0 ? 2 : 0.5;
          (rows[`${x.label} ${p}`] ??= []).push(
            RATE
              ? await measurePaced(call, RATE, { seconds: SECONDS, warmup, server })
              : await measure(call, Number(c), { seconds: SECONDS, warmup, server, procs }),
          );
        }
      }
    }
  }
} finally {
  await Promise.all(Object.values(servers).map((s) => s.server.stop()));
  variants.close();
  await rm(dir, { recursive: true, force: true });
}
const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(
  `${RATE ? `open loop at ${RATE}/s` : `c=${c}`}, ${ROUNDS} rounds of ${SECONDS} s, ${new Date().toISOString().slice(0, 16)}Z, load avg ${load}; A=${a} B=${b}`,
);
for (const [name, runs] of Object.entries(rows)) {
  const col = (k, d) => `${k} ${median(runs.map((x) => x[k])).toFixed(d)} [${runs.map((x) => x[k].toFixed(d)).join(" ")}]`;
  console.log(
    `${name.padEnd(12)} ${(RATE ? [col("cpuUs", 1)] : [col("rps", 0), col("p50", 3), col("cpuUs", 1), col("gcPct", 1), col("srvUs", 1), col("genUs", 1)]).join("   ")}`,
  );
}
for (const x of builds) {
  const none = rows[`${x.label} none`];
  if (!none) continue;
  for (const p of Object.keys(groups).filter((g) => g !== "none" && g !== "stdio")) {
    const ratios = rows[`${x.label} ${p}`].map((r, i) => r.cpuUs / none[i].cpuUs);
    console.log(`${x.label} CPU/call ${p} ÷ none: ${median(ratios).toFixed(2)} [${ratios.map((q) => q.toFixed(2)).join(" ")}]`);
  }
}
