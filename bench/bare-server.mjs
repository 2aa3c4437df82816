// The floor the benchmarks compare against: a bare Fastify route returning what the echo tool
// returns (no logger, no hooks, no schemas). Listens on argv[2] (or a random port).
import Fastify from "fastify";

const app = Fastify({ logger: false });
app.post("/echo", async (request) => ({ output: String(request.body?.arguments?.text ?? ""), isError: false }));
app.get("/healthz", async () => ({ status: "ok" }));
await app.listen({ host: "127.0.0.1", port: Number(process.argv[2] ?? 0) });
