// The MCP client side of the stdio hop, in this process, without HTTP: CPU µs per `echo` call
// (process.cpuUsage over the measured window) and, with HEAP=<n>, KB allocated per call (V8's
// sampling heap profiler, collected objects included) with its top n allocation sites.
// Modes:
//   v1      a direct v1 SDK client (@modelcontextprotocol/sdk) with its stdio transport
//   v2      a direct v2 SDK client (@modelcontextprotocol/client) with its stdio transport
//   source  the gateway's McpServerSource (dist/; BENCH_ROOT=<checkout> for another build's),
//           its tool's execute with the context a REST call gives it (signal, timeout, and a held
//           call's answer route)
// Usage: npm run build && node bench/mcp-hop-inprocess.mjs <mode> [concurrency=32] [seconds=3]
// CPUPROF=<file>: writes a CPU profile of the measured window (open it in Chrome DevTools).
// Each mode in its own process; alternate them (and builds) over rounds for a before/after.
import path from "node:path";
import { performance } from "node:perf_hooks";
import { EVERYTHING, childPid, procCpuMs } from "./lib.mjs";

const [mode = "source", c = "32", seconds = "3"] = process.argv.slice(2);
const root = process.env.BENCH_ROOT ?? path.resolve(import.meta.dirname, "..");
const checked = (text) => {
  if (text !== "Echo: hello") throw new Error(`bad echo: ${text}`);
};
let call;
let serverPid;
let close;
if (mode === "v1" || mode === "v2") {
  const { Client } = await import(mode === "v1" ? "@modelcontextprotocol/sdk/client/index.js" : "@modelcontextprotocol/client");
  const { StdioClientTransport } = await import(
    mode === "v1" ? "@modelcontextprotocol/sdk/client/stdio.js" : "@modelcontextprotocol/client/stdio"
  );
  const client = new Client({ name: "bench", version: "0" });
  const transport = new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "ignore" });
  await client.connect(transport);
  call = async () => checked((await client.callTool({ name: "echo", arguments: { message: "hello" } })).content[0].text);
  serverPid = () => transport.pid;
  close = () => client.close();
} else if (mode === "source") {
  const { McpServerSource } = await import(path.join(root, "dist/sources/mcp/mcp-server-source.js"));
  const { toServerSpec } = await import(path.join(root, "dist/sources/mcp/config/server-spec.js"));
  const source = new McpServerSource(toServerSpec("everything", { command: [process.execPath, EVERYTHING, "stdio"] }, root), {});
  const quiet = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };
  await source.build({ logger: quiet, onToolsChanged() {} });
  const tool = source.tools().find((t) => t.name === "everything_echo");
  const ask = async () => ({});
  call = async () => {
    const ctx = { signal: new AbortController().signal, timeout: 30_000, caller: "anonymous", requestId: "r", onInputRequest: ask };
    checked((await tool.execute({ message: "hello" }, ctx)).output);
  };
  serverPid = () => childPid(process.pid);
  close = () => source.close();
} else throw new Error(`unknown mode ${mode}: v1, v2 or source`);

async function drive(secs) {
  const end = performance.now() + secs * 1000;
  let n = 0;
  const worker = async () => {
    while (performance.now() < end) {
      await call();
      n++;
    }
  };
  await Promise.all(Array.from({ length: Number(c) }, worker));
  return n;
}

await drive(1.5);
const label = `${mode}${mode === "source" ? ` (${path.basename(root)})` : ""}`;
if (process.env.HEAP) {
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 512,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  const n = await drive(Number(seconds));
  const { profile } = await session.post("HeapProfiler.stopSampling");
  const sites = new Map();
  const walk = (node) => {
    const f = node.callFrame;
    const site = `${f.functionName || "(anonymous)"} ${f.url.replace(/.*node_modules\//, "")}:${f.lineNumber}`;
    if (node.selfSize) sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  const total = [...sites.values()].reduce((a, b) => a + b, 0);
  console.log(`${label}: ${(total / n / 1024).toFixed(1)} KB allocated per call (sampled), ${n} calls`);
  for (const [site, bytes] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.HEAP)))
    console.log(`${(bytes / n).toFixed(0).padStart(7)} B/call  ${site}`);
} else {
  // CPUPROF=<file>: a CPU profile (100 µs sampling) of the measured window only, after the warm-up.
  const prof = process.env.CPUPROF ? new (await import("node:inspector/promises")).Session() : undefined;
  if (prof) {
    prof.connect();
    await prof.post("Profiler.enable");
    await prof.post("Profiler.setSamplingInterval", { interval: 100 });
    await prof.post("Profiler.start");
  }
  const cpu0 = process.cpuUsage();
  const srv0 = procCpuMs(serverPid());
  const t0 = performance.now();
  const n = await drive(Number(seconds));
  const cpu = process.cpuUsage(cpu0);
  const elapsed = (performance.now() - t0) / 1000;
  if (prof) {
    const { profile } = await prof.post("Profiler.stop");
    (await import("node:fs")).writeFileSync(process.env.CPUPROF, JSON.stringify(profile));
  }
  console.log(
    `${label.padEnd(24)} c=${c}  ${(n / elapsed).toFixed(0)} calls/s   client CPU ${((cpu.user + cpu.system) / n).toFixed(1)} µs/call   server-everything CPU ${(((procCpuMs(serverPid()) - srv0) * 1000) / n).toFixed(1)} µs/call`,
  );
}
await close();
process.exit(0);
