// `npm run bench`: the execute pipeline against a bare Fastify route, measured in one run.
// Servers run in child processes; this process only generates load (127.0.0.1 only, bounded).
import { existsSync } from "node:fs";
import path from "node:path";
import { load, row, startChild } from "./lib.mjs";

const duration = Number(process.env.BENCH_SECONDS ?? 10);
const here = import.meta.dirname;
const body = { arguments: { text: "hello" } };

const bare = await startChild(path.join(here, "bare-server.mjs"));
const tn = await startChild(path.join(here, "toolnexus-server.mjs"));
try {
  // A short warm-up so neither side pays JIT compilation inside the measured window.
  await load(`${bare.url}/echo`, body, { duration: 2 });
  await load(`${tn.url}/tools/echo/execute`, body, { duration: 2 });
  const b = await load(`${bare.url}/echo`, body, { duration });
  const e = await load(`${tn.url}/tools/echo/execute`, body, { duration });
  console.log(`\nnative echo, c=32, ${duration} s each (${new Date().toISOString().slice(0, 10)})`);
  console.log(row("bare Fastify route", b));
  console.log(row("POST /tools/echo/execute", e));
  console.log(`ratio execute ÷ bare (req/s): ${(e.rps / b.rps).toFixed(2)}   (target ≥ 0.80)`);
} finally {
  await Promise.all([bare.stop(), tn.stop()]);
}

const mcp = path.join(here, "mcp.mjs");
if (existsSync(mcp)) await import(mcp);
