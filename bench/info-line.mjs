// The per-call log line in process: a request's lazy logger (RequestLogger, no child made) and
// the pipeline's logCall (the line's fields and its write) under the logger Fastify makes of the
// service's redacting logger. `noop` (the
// default) writes to a no-op stream and times the line's own work; `stdout` writes through the
// service's stdout destination (redirect stdout to a file) in bursts of 32 lines per event-loop
// turn, as a loaded server writes them, and reads the process's CPU, its write thread included.
// Prints ns per line for each of 5 rounds of 200,000 lines (the first warms the JIT up) on stderr.
// Usage: npm run build && node bench/info-line.mjs [noop|stdout] [checkout, default this one] > /tmp/lines
import path from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import Fastify from "fastify";

const mode = process.argv[2] ?? "noop";
const root = path.resolve(process.argv[3] ?? path.join(import.meta.dirname, ".."));
const { redactingLogger, SecretScrubber, stdoutDestination } = await import(path.join(root, "dist/server/observability/logger.js"));
const { logCall } = await import(path.join(root, "dist/server/calls/call-record.js"));
const { RequestLogger } = await import(path.join(root, "dist/server/http/request-logger.js"));

let bytes = 0;
const sink = mode === "stdout" ? stdoutDestination() : { write: (line) => void (bytes += line.length) };
const log = Fastify({ loggerInstance: redactingLogger(new SecretScrubber([]), { level: "info" }, sink) }).log;
// A REST call of the echo tool by the anonymous caller, as the pipeline ends it.
const end = { name: "echo", tool: { name: "echo", source: "native" }, outcome: "ok", statusCode: 200, pending: false, durationMs: 0.4 };
const caller = { id: "anonymous", viewKey: "anonymous", kind: "anonymous", allows: () => true };
const LINES = 200_000;
const BURST = 32;
for (let round = 0; round < 5; round++) {
  const cpu = process.cpuUsage();
  for (let i = 0; i < LINES; i += BURST) {
    for (let j = 0; j < BURST; j++) {
      const request = new RequestLogger(log, { reqId: "b28149bd-3e7d-4a81-9747-9d712480954c" });
      logCall(end, { caller, requestId: "b28149bd-3e7d-4a81-9747-9d712480954c", transport: "rest", log: request });
    }
    if (mode === "stdout") await nextTurn();
  }
  const used = process.cpuUsage(cpu);
  process.stderr.write(`round ${round + 1}: ${(((used.user + used.system) * 1000) / LINES).toFixed(0)} ns CPU per line\n`);
}
if (mode !== "stdout" && bytes === 0) throw new Error("nothing written");
