// N calls to the echo tool through an in-process server and an undici client, then exit: the
// workload for load-independent instruction counts per call. Run it twice under callgrind and
// divide the difference by the difference in N (so start-up and warm-up cancel out):
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node bench/inprocess-calls.mjs toolnexus 200
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node bench/inprocess-calls.mjs toolnexus 1200
// Usage: node bench/inprocess-calls.mjs <toolnexus|bare> <calls> [concurrency=8]
// BENCH_ROOT=<other checkout> measures another build's dist/.
import path from "node:path";
import { Pool } from "undici";

const [what = "toolnexus", calls = "1000", c = "8"] = process.argv.slice(2);
const root = process.env.BENCH_ROOT ?? path.resolve(import.meta.dirname, "..");
let app;
let route = "/tools/echo/execute";
if (what === "bare") {
  const { default: Fastify } = await import("fastify");
  app = Fastify({ logger: false });
  app.post("/echo", async (request) => ({ output: String(request.body?.arguments?.text ?? ""), isError: false }));
  route = "/echo";
} else {
  const { buildServer } = await import(path.join(root, "dist/server/build-server.js"));
  // logLevel info: the per-call line is written (to stdout; redirect it).
  app = await buildServer({
    config: { server: { logLevel: "info" }, plugins: [path.join(import.meta.dirname, "fixtures/plugins/echo.mjs")] },
  });
}
await app.listen({ host: "127.0.0.1", port: 0 });
await app.toolnexus?.ready;
const pool = new Pool(`http://127.0.0.1:${app.server.address().port}`, { connections: Number(c) });
const body = JSON.stringify({ arguments: { text: "hello" } });
let left = Number(calls);
await Promise.all(
  Array.from({ length: Number(c) }, async () => {
    while (left-- > 0) {
      const r = await pool.request({ path: route, method: "POST", headers: { "content-type": "application/json" }, body });
      await r.body.text();
      if (r.statusCode !== 200) throw new Error(`HTTP ${r.statusCode}`);
    }
  }),
);
await pool.close();
await app.close();
process.exit(0);
