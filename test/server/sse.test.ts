import http from "node:http";
import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { openSse } from "../../src/server/sse.js";

describe("openSse", () => {
  it("reports a client that left before the stream opened at once", async () => {
    const app = Fastify();
    let fired: Promise<boolean> | undefined;
    app.post("/late", (_request, reply) => new Promise<void>((resolve) => {
      // Open the stream only after the client is gone, as a call whose checks outlasted it.
      reply.raw.once("close", () => {
        const sse = openSse(reply, 100);
        fired = new Promise((r) => {
          sse.onClientClose(() => r(sse.closed));
          setTimeout(() => r(false), 1000).unref();
        });
        resolve();
      });
    }));
    await app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const req = http.request({ host: "127.0.0.1", port, method: "POST", path: "/late" });
    req.on("error", () => {}); // destroyed on purpose
    req.end();
    await new Promise((r) => setTimeout(r, 100));
    req.destroy();
    for (let i = 0; i < 200 && !fired; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await fired).toBe(true);
    await app.close();
  });
});
