// Starts the built toolnexus on a random port with the bench config and reports the port.
import path from "node:path";
import { buildServer } from "../dist/index.js";

const config = process.argv[2] ?? path.join(import.meta.dirname, "fixtures", "toolnexus.yaml");
const app = await buildServer({ config });
await app.listen({ host: "127.0.0.1", port: 0 });
await app.toolnexus.ready;
process.send?.({ port: app.server.address().port });
// CPU time the server used so far, on request: a cost per call that holds up on a loaded machine.
process.on("message", (m) => {
  if (m === "cpu") process.send?.({ cpu: process.cpuUsage() });
});
