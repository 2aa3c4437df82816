// Start-up as issue 22 defines it: spawn → first 200 of /readyz, on the example plugins, with bare
// Fastify as the floor, the builds given alternated round by round. The probe is one raw HTTP/1.1
// GET on a fresh socket every 2 ms, so the measuring process loads no HTTP client while the
// child boots (fetch's first use costs the parent ~100 ms of CPU on a 2-core machine).
// Usage: node bench/startup.mjs [cli.js …]   (default: dist/bundle/cli.js; BENCH_ROUNDS, default 9)
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { freePort, ROOT } from "./lib.mjs";

const clis = process.argv.length > 2 ? process.argv.slice(2) : [path.join(ROOT, "dist/bundle/cli.js")];
const rounds = Number(process.env.BENCH_ROUNDS ?? 9);
const dir = mkdtempSync(path.join(os.tmpdir(), "toolnexus-startup-"));

/** True when GET `route` on 127.0.0.1:`port` answers 200. */
const answers200 = (port, route) =>
  new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let head = "";
    socket.on("connect", () => socket.write(`GET ${route} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`));
    socket.on("data", (d) => (head += d));
    socket.on("close", () => resolve(head.startsWith("HTTP/1.1 200")));
    socket.on("error", () => resolve(false));
  });

/** Milliseconds from spawning `node args…` to the first 200 of `route`. */
async function readyMs(args, port, route) {
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: "ignore" });
  const deadline = Date.now() + 30_000;
  while (!(await answers200(port, route))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${args.join(" ")} never became ready`);
    await new Promise((r) => setTimeout(r, 2));
  }
  const ms = performance.now() - started;
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
  return ms;
}

const rows = { "bare Fastify": [] };
for (const cli of clis) rows[cli] = [];
for (let i = 0; i < rounds; i++) {
  let port = await freePort();
  rows["bare Fastify"].push(await readyMs([path.join(ROOT, "bench/bare-server.mjs"), String(port)], port, "/healthz"));
  for (const cli of clis) {
    port = await freePort();
    const config = path.join(dir, "toolnexus.json");
    const plugin = path.join(ROOT, "examples/config/plugins/examples.mjs");
    writeFileSync(config, JSON.stringify({ server: { host: "127.0.0.1", port, logLevel: "warn" }, plugins: [plugin] }));
    rows[cli].push(await readyMs([cli, "serve", "--config", config], port, "/readyz"));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(`start-up, spawn → first 200 (ms), ${rounds} alternated rounds, node ${process.version}: median [min–max]`);
for (const [name, xs] of Object.entries(rows)) {
  console.log(`  ${name.padEnd(40)} ${median(xs).toFixed(0).padStart(5)} [${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}]`);
}
