// Where a REST call's CPU goes, against bare Fastify: each server runs under Linux `perf record`
// (software cpu-clock sampling, call graphs; the JIT's code named through --perf-basic-prof)
// at the same closed-loop load, then every sampled leaf function is printed in µs per request,
// toolnexus minus bare, largest first. It found what callgrind's totals could not name: a V8
// runtime path taken by every nextTick, hash tables rebuilt per call (history/2026-12-06-execute-path.md).
// Usage: npm run build && node bench/perf-profile.mjs [seconds=8] [top=40] [logLevel=info]
// Needs `perf` (Debian: linux-perf). Keeps the perf.data files and prints their paths, for
// `perf report -i <file> --no-children --sort sym` or `perf script -i <file> -F ip,sym`.
// Read per-request figures of one run only: the same build reads ±15 % between runs here, every
// function alike (the VM, not the JIT).
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ECHO_PLUGIN, drive, poster, startBare, startToolnexus } from "./lib.mjs";

const [seconds = "8", top = "40", level = "info"] = process.argv.slice(2);
const HZ = 4999;
try {
  execFileSync("perf", ["--version"], { stdio: "ignore" });
} catch {
  throw new Error("perf is not installed (Debian: apt-get install -y linux-perf)");
}
const dir = await mkdtemp(path.join(tmpdir(), "tn-perf-"));

/** Records one server under load; resolves to its perf.data path and the requests made meanwhile. */
async function record(what) {
  const srv =
    what === "bare"
      ? await startBare(["--perf-basic-prof"])
      : await startToolnexus(dir, { server: { logLevel: level }, plugins: [ECHO_PLUGIN] }, what, ["--perf-basic-prof"]);
  const call =
    what === "bare"
      ? poster(srv, "/echo", { arguments: { text: "hello" } }, "hello")
      : poster(srv, "/tools/echo/execute", { arguments: { text: "hello" } }, "hello");
  await drive(call, 32, 4);
  const data = path.join(dir, `${what}.perf.data`);
  const perf = spawn("perf", ["record", "-F", String(HZ), "-g", "-p", String(srv.child.pid), "-o", data], { stdio: "ignore" });
  await new Promise((r) => setTimeout(r, 300));
  const { n } = await drive(call, 32, Number(seconds));
  perf.kill("SIGINT");
  await new Promise((r) => perf.once("exit", r));
  await srv.stop();
  return { data, n };
}

/** µs per request of each leaf symbol (the sampled function itself, callees not included). */
function leaves({ data, n }) {
  const text = execFileSync("perf", ["script", "-i", data, "-F", "ip,sym"], {
    maxBuffer: 1 << 30,
    stdio: ["ignore", "pipe", "ignore"],
  }).toString();
  const counts = new Map();
  // A sample is a block of frames, leaf first, blocks separated by a blank line.
  for (const block of text.split("\n\n")) {
    const leaf = block
      .trimStart()
      .split("\n", 1)[0]
      ?.trim()
      .replace(/^[0-9a-f]+\s+/, "");
    if (leaf) counts.set(leaf, (counts.get(leaf) ?? 0) + 1);
  }
  const usPerSample = 1e6 / HZ;
  return new Map([...counts].map(([k, v]) => [k, (v * usPerSample) / n]));
}

const bare = await record("bare");
const tn = await record("toolnexus");
const [b, t] = [leaves(bare), leaves(tn)];
const sum = (m) => [...m.values()].reduce((a, x) => a + x, 0);
console.log(`sampled CPU µs per request: toolnexus ${sum(t).toFixed(1)} (${tn.n} requests), bare ${sum(b).toFixed(1)} (${bare.n})`);
console.log(`perf data: ${tn.data} ${bare.data}\n`);
console.log("  diff     tn   bare  leaf function");
const keys = [...new Set([...b.keys(), ...t.keys()])].sort(
  (x, y) => (t.get(y) ?? 0) - (b.get(y) ?? 0) - ((t.get(x) ?? 0) - (b.get(x) ?? 0)),
);
for (const k of keys.slice(0, Number(top))) {
  const [x, y] = [t.get(k) ?? 0, b.get(k) ?? 0];
  console.log(`${(x - y).toFixed(2).padStart(6)} ${x.toFixed(2).padStart(6)} ${y.toFixed(2).padStart(6)}  ${k.slice(0, 110)}`);
}
