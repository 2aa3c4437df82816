// Baseline for `npm run bench`: a bare Fastify route returning what the echo tool returns.
import Fastify from "fastify";

const app = Fastify({ logger: false });
app.post("/echo", async (request) => ({ output: String(request.body?.arguments?.text ?? ""), isError: false }));
await app.listen({ host: "127.0.0.1", port: 0 });
process.send?.({ port: app.server.address().port });
