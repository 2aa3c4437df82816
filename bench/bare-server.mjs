// The floor the benchmarks compare against: a bare Fastify route returning what the echo tool
// returns (no logger, no hooks, no schemas). Listens on argv[2] (or a random port). argv[3]:
// µs of busy work added to each call (bench/closed-loop-gain.mjs; 0 by default).
import Fastify from "fastify";

const spinNs = Number(process.argv[3] ?? 0) * 1000;
const app = Fastify({ logger: false });
app.post("/echo", async (request) => {
  if (spinNs > 0) for (const t = process.hrtime.bigint(); Number(process.hrtime.bigint() - t) < spinNs;);
  return { output: String(request.body?.arguments?.text ?? ""), isError: false };
});
app.get("/healthz", async () => ({ status: "ok" }));
await app.listen({ host: "127.0.0.1", port: Number(process.argv[2] ?? 0) });
