// Starts the built toolnexus on a random port with the bench config and reports the port.
// BENCH_DIST=<another checkout>/dist/index.js starts that build instead (a before/after run).
import path from "node:path";
import { pathToFileURL } from "node:url";

const { buildServer } = await import(process.env.BENCH_DIST ? pathToFileURL(process.env.BENCH_DIST).href : "../dist/index.js");

const config = process.argv[2] ?? path.join(import.meta.dirname, "fixtures", "toolnexus.yaml");
const app = await buildServer({ config });
await app.listen({ host: "127.0.0.1", port: 0 });
await app.toolnexus.ready;
process.send?.({ port: app.server.address().port });
// CPU time the server used so far, on request: a cost per call that holds up on a loaded machine.
process.on("message", (m) => {
  if (m === "cpu") process.send?.({ cpu: process.cpuUsage() });
});
