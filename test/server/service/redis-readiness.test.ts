import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, inject, it } from "vitest";
import { freePort } from "../../helpers/free-port.js";
import { acceptedExecution, pollUntil, submit } from "../../helpers/executions.js";
import { startServer } from "../../helpers/server.js";
import { testTools } from "../../helpers/tools.js";

// A replica with `redis:` is ready once its Redis connections were first tried: a reachable
// Redis is connected before /readyz says 200 (its commands fail fast, no offline queue, so a
// submit in the first moments answered 503), an unreachable one never holds start-up.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A TCP proxy to the test Redis that holds every new connection `delayMs` before it forwards it. */
async function slowProxy(delayMs: number): Promise<string> {
  const target = new URL(inject("redisUrl"));
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.pause();
    setTimeout(() => {
      const upstream = connect(Number(target.port), target.hostname, () => {
        client.pipe(upstream).pipe(client);
        client.resume();
      });
      sockets.add(upstream);
      const end = () => (client.destroy(), upstream.destroy());
      upstream.on("error", end).on("close", end);
      client.on("error", end).on("close", end);
    }, delayMs);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });
  return `redis://127.0.0.1:${(server.address() as AddressInfo).port}/6`;
}

describe("readiness with a shared Redis", () => {
  it("waits for a Redis that connects slowly: the first submit after ready is accepted", async () => {
    const s = await startServer({ config: { redis: { url: await slowProxy(1000) } }, tools: testTools() });
    closers.push(() => s.close());
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
    const e = await acceptedExecution(await submit(s.url, "echo", { arguments: { text: "first" } }));
    expect((await pollUntil(s.url, e.id, ["succeeded"])).result).toEqual({ output: "first", isError: false });
  });

  it("does not wait for an unreachable Redis: ready, sync calls served, executions 503, and it shuts down", async () => {
    const s = await startServer({ config: { redis: { url: `redis://127.0.0.1:${await freePort()}` } }, tools: testTools() });
    closers.push(() => s.close());
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
    const sync = await fetch(`${s.url}/tools/echo/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ arguments: { text: "sync" } }),
    });
    expect(await sync.json()).toEqual({ output: "sync", isError: false });
    const down = await submit(s.url, "echo", { arguments: { text: "queued" } });
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ code: "STORE_UNAVAILABLE" });
  });
});
