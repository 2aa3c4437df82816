import http from "node:http";
import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { callSignal } from "../../src/server/call-signal.js";
import { abortOnDisconnect } from "../../src/server/disconnect.js";

describe("abortOnDisconnect", () => {
  it("aborts at once a call whose client left while it was being checked", async () => {
    const app = Fastify();
    let reason: Promise<unknown> | undefined;
    app.post("/late", (_request, reply) => new Promise<void>((resolve) => {
      // Bind only after the client is gone, as a call whose checks outlasted it: "close" already fired.
      reply.raw.once("close", () => {
        const call = callSignal(5_000);
        abortOnDisconnect(reply, call);
        reason = call.signal.aborted ? Promise.resolve(call.signal.reason) : new Promise((r) => call.signal.addEventListener("abort", () => r(call.signal.reason)));
        void reason.finally(() => call.dispose());
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
    for (let i = 0; i < 200 && !reason; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await reason).toMatchObject({ code: "CLIENT_CLOSED" });
    await app.close();
  });
});
