import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { testTools, type SignalLog } from "../helpers/tools.js";
import { eventually } from "../helpers/wait.js";

const log: SignalLog = {};
let s: TestServer;
beforeAll(async () => {
  s = await startServer({ tools: testTools(log) });
});
afterAll(() => s.close());

describe("client disconnect over a real TCP socket", () => {
  it("aborts the tool's signal and logs the call as 499 as soon as the client goes away", async () => {
    const { port } = new URL(s.url);
    const socket = net.connect(Number(port), "127.0.0.1");
    await new Promise((r) => socket.once("connect", r));
    const body = JSON.stringify({ arguments: { ms: 10_000 } });
    socket.write(
      `POST /tools/slow/execute HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: disconnect-1\r\n\r\n${body}`,
    );
    await eventually(() => log.startedAt);

    // The body has been read by now: a request.raw "close" listener would already have fired.
    expect(log.abortedAt).toBeUndefined();
    const destroyedAt = performance.now();
    socket.destroy();

    const abortedAt = await eventually(() => log.abortedAt, { everyMs: 2 });
    const line = await eventually(() => s.logs.find((l) => l.reqId === "disconnect-1" && l.msg === "tool call"), { everyMs: 2 });
    const loggedAt = performance.now();
    console.log(
      `disconnect → signal abort: ${(abortedAt - destroyedAt).toFixed(1)} ms; → log line: ${(loggedAt - destroyedAt).toFixed(1)} ms`,
    );
    // No wall-clock bound (a loaded machine would make it flaky): the tool sleeps 10 s, so an
    // abort at all, with CLIENT_CLOSED, proves the disconnect and not the tool ended the call.
    expect(line.durationMs).toBeLessThan(10_000);
    expect(log.reason).toMatchObject({ code: "CLIENT_CLOSED" });
    expect(line).toMatchObject({ tool: "slow", outcome: "cancelled", statusCode: 499 });
  });

  it("a client that stays connected is not cancelled after its body is read", async () => {
    const res = await fetch(`${s.url}/tools/slow/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ arguments: { ms: 150 } }),
    });
    expect(await res.json()).toEqual({ output: "done", isError: false });
  });
});
