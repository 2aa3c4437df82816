// Allocation and promotion per call, from V8's own GC trace (`--trace-gc-nvp`): bytes allocated
// and bytes promoted to the old generation per request, counted over the scavenges of a measured
// window after a warm-up. Unlike wall time these barely move with the machine's load.
// Usage: npm run build && node bench/gc-per-call.mjs [execute|mcp|bare] [concurrency] [seconds]
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ECHO_PLUGIN, EVERYTHING, drive, poster, startBare, startToolnexus } from "./lib.mjs";

const [what = "execute", c = "32", seconds = "5"] = process.argv.slice(2);
const dir = await mkdtemp(path.join(tmpdir(), "tn-gc-"));
const log = path.join(dir, `${what}.log`);
const trace = ["--trace-gc-nvp"];
const server =
  what === "bare"
    ? await startBare(trace, log)
    : await startToolnexus(
        dir,
        what === "mcp"
          ? { server: { logLevel: "info" }, mcpServers: { everything: { command: [process.execPath, EVERYTHING, "stdio"] } } }
          : { server: { logLevel: "info" }, plugins: [ECHO_PLUGIN] },
        what,
        trace,
      );
const call =
  what === "bare"
    ? poster(server, "/echo", { arguments: { text: "hello" } })
    : what === "mcp"
      ? poster(server, "/tools/everything_echo/execute", { arguments: { message: "hello" } }, "Echo: hello")
      : poster(server, "/tools/echo/execute", { arguments: { text: "hello" } }, "hello");
const gcLines = async () => (await readFile(log, "utf8")).split("\n").filter((l) => l.includes(" gc="));
try {
  await drive(call, Number(c), 2);
  const skip = (await gcLines()).length;
  const { n } = await drive(call, Number(c), Number(seconds));
  const lines = (await gcLines()).slice(skip);
  const num = (l, k) => Number(l.match(new RegExp(`\\b${k}=([\\d.]+)`))?.[1] ?? 0);
  const sum = (k) => lines.reduce((a, l) => a + num(l, k), 0);
  const scavenges = lines.filter((l) => /gc=s\b/.test(l));
  console.log(
    `${what} c=${c}: ${n} calls, ${lines.length} GCs (${scavenges.length} scavenges); ` +
      `allocated ${(sum("allocated") / n / 1024).toFixed(1)} KB/call, promoted ${(sum("promoted") / n / 1024).toFixed(2)} KB/call, ` +
      `longest scavenge ${Math.max(0, ...scavenges.map((l) => num(l, "pause"))).toFixed(1)} ms`,
  );
} finally {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
