import http from "node:http";
import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { callSignal, type CallSignal } from "../../../src/server/calls/call-signal.js";
import { abortOnDisconnect } from "../../../src/server/calls/disconnect.js";
import { afterClientLeft } from "../../helpers/client-left.js";

const aborted = (call: CallSignal): Promise<unknown> =>
  call.signal.aborted
    ? Promise.resolve(call.signal.reason)
    : new Promise((r) => call.signal.addEventListener("abort", () => r(call.signal.reason)));

describe("abortOnDisconnect", () => {
  it("aborts at once a call whose client left while it was being checked", async () => {
    const reason = await afterClientLeft((reply) => {
      const call = callSignal(5_000);
      abortOnDisconnect(reply, call);
      return aborted(call).finally(() => call.dispose());
    });
    expect(reason).toMatchObject({ code: "CLIENT_CLOSED" });
  });

  describe("on a keep-alive connection", () => {
    const app = Fastify();
    const calls: CallSignal[] = [];
    const sockets: unknown[] = [];
    app.addHook("onRequest", (request, _reply, done) => {
      sockets.push(request.raw.socket);
      done();
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    // /hold answers when its call is aborted; /early answers at once and leaves its call running, as a promoted call does.
    app.post("/hold", async (_request, reply) => {
      const call = callSignal(5_000);
      calls.push(call);
      abortOnDisconnect(reply, call);
      await aborted(call);
      call.dispose();
      return {};
    });
    app.post("/early", async (_request, reply) => {
      const call = callSignal(5_000);
      calls.push(call);
      abortOnDisconnect(reply, call);
      return {};
    });
    const post = (path: string) =>
      new Promise<http.ClientRequest>((resolve) => {
        const { port } = app.server.address() as AddressInfo;
        const req = http.request({ host: "127.0.0.1", port, method: "POST", path, agent });
        req.on("error", () => {}); // destroyed on purpose
        req.on("response", (res) => res.resume());
        req.end();
        resolve(req);
      });
    afterEach(() => {
      for (const c of calls.splice(0)) c.dispose();
    });

    it("aborts the call in progress when its client leaves, and not the one whose response ended", async () => {
      await app.listen({ host: "127.0.0.1", port: 0 });
      try {
        const early = await post("/early");
        await new Promise((r) => early.once("response", (res) => res.once("end", r)));
        // The same connection carries the next request.
        const held = await post("/hold");
        for (let i = 0; i < 200 && calls.length < 2; i++) await new Promise((r) => setTimeout(r, 5));
        expect(calls).toHaveLength(2);
        expect(sockets[1]).toBe(sockets[0]);
        held.destroy();
        expect(await aborted(calls[1]!)).toMatchObject({ code: "CLIENT_CLOSED" });
        expect(calls[0]!.signal.aborted).toBe(false);
      } finally {
        agent.destroy();
        await app.close();
      }
    });
  });
});
