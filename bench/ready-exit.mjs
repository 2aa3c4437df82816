// Start-up as `toolnexus serve` does it (load the config, the start-up check, build, listen,
// sources ready), then print the CPU time and RSS and exit. For start-up figures that do not
// depend on the machine's load: run it under `valgrind --tool=callgrind` for an instruction
// count, or read its CPU time. Usage: node bench/ready-exit.mjs [config] (default examples/config)
import path from "node:path";
import { performance } from "node:perf_hooks";

const root = process.env.BENCH_ROOT ?? path.resolve(import.meta.dirname, "..");
const config = process.argv[2] ?? path.join(root, "examples/config");
const { loadConfig } = await import(path.join(root, "dist/config/load.js"));
const { refusalReason } = await import(path.join(root, "dist/server/service/startup-checks.js"));
const loaded = await loadConfig(config);
if (refusalReason(loaded.config)) throw new Error("the config would be refused");
const { buildServer } = await import(path.join(root, "dist/server/build-server.js"));
const app = await buildServer({ config: loaded, logger: false });
await app.listen({ host: "127.0.0.1", port: 0 });
await app.toolnexus.ready;
const ready = await app.inject({ url: "/readyz" });
if (ready.statusCode !== 200) throw new Error(`/readyz ${ready.statusCode}`);
const cpu = process.cpuUsage();
console.log(
  `ready: cpu ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms, rss ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB, wall ${performance.now().toFixed(0)} ms since process start`,
);
process.exit(0);
