// The per-call log line in process: a request's logger (RequestLogger, no child made) and
// writeInfoLine under the logger Fastify makes of the service's redacting logger, writing to a
// no-op stream, so only the line's own work is timed. Prints ns per line for each of 5 rounds
// of 500,000 lines (the first warms the JIT up).
// Usage: npm run build && node bench/info-line.mjs [dist root, default this checkout's]
import path from "node:path";
import Fastify from "fastify";

const root = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, ".."));
const { redactingLogger, SecretScrubber } = await import(path.join(root, "dist/server/observability/logger.js"));
const { writeInfoLine } = await import(path.join(root, "dist/server/observability/info-line.js"));
const { RequestLogger } = await import(path.join(root, "dist/server/http/request-logger.js"));

let bytes = 0;
const sink = { write: (line) => void (bytes += line.length) };
const log = Fastify({ loggerInstance: redactingLogger(new SecretScrubber([]), { level: "info" }, sink) }).log;
const fields = {
  tool: "echo",
  source: "native",
  caller: "anonymous",
  auth: "anonymous",
  transport: "rest",
  outcome: "ok",
  statusCode: 200,
  durationMs: 0.4,
};
const LINES = 500_000;
for (let round = 0; round < 5; round++) {
  const t = process.hrtime.bigint();
  for (let i = 0; i < LINES; i++) {
    const request = new RequestLogger(log, { reqId: "b28149bd-3e7d-4a81-9747-9d712480954c" });
    if (!writeInfoLine(request, fields, "tool call")) throw new Error("the line went to pino");
  }
  console.log(`round ${round + 1}: ${(Number(process.hrtime.bigint() - t) / LINES).toFixed(0)} ns per line`);
}
if (bytes === 0) throw new Error("nothing written");
