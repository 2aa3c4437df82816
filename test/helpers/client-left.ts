import http from "node:http";
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyReply } from "fastify";

/**
 * Runs `bind(reply)` only after the client of that request is gone ("close" already fired),
 * as for a call whose checks outlasted its client, and resolves with what `bind` observes.
 * A real socket: the request is sent, then destroyed by the client.
 */
export async function afterClientLeft<T>(bind: (reply: FastifyReply) => Promise<T>): Promise<T> {
  const app = Fastify();
  let observed: Promise<T> | undefined;
  app.post(
    "/late",
    (_request, reply) =>
      new Promise<void>((resolve) => {
        reply.raw.once("close", () => {
          observed = bind(reply);
          resolve();
        });
      }),
  );
  await app.listen({ host: "127.0.0.1", port: 0 });
  try {
    const { port } = app.server.address() as AddressInfo;
    const req = http.request({ host: "127.0.0.1", port, method: "POST", path: "/late" });
    req.on("error", () => {}); // destroyed on purpose
    req.end();
    await new Promise((r) => setTimeout(r, 100));
    req.destroy();
    for (let i = 0; i < 200 && !observed; i++) await new Promise((r) => setTimeout(r, 10));
    if (!observed) throw new Error("the route never saw its client leave");
    return await observed;
  } finally {
    await app.close();
  }
}
