import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../../helpers/server.js";

const HEADERS_TIMEOUT_MS = 1000;
let s: TestServer;

beforeAll(async () => {
  s = await startServer({ config: { server: { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: 2000 } } });
});
afterAll(() => s.close());

/** Sends a request line, then one header byte every 200 ms until the server hangs up; resolves with what it said. */
function slowloris(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let drip: NodeJS.Timeout | undefined;
    socket.on("connect", () => {
      socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ");
      drip = setInterval(() => socket.write("a"), 200);
    });
    socket.on("data", (b) => chunks.push(b));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearInterval(drip);
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
  });
}

describe("slow clients", () => {
  // The bound is the test timeout: headersTimeoutMs + Node's 1 s sweep + slack for a loaded machine.
  it(
    "disconnects a client that dribbles its headers, with 408 problem+json, while others are served",
    { timeout: HEADERS_TIMEOUT_MS + 2000 + 5000 },
    async () => {
      const shed = slowloris(s.url);
      const meanwhile = await fetch(`${s.url}/healthz`);
      expect(meanwhile.status).toBe(200);
      const said = await shed;
      expect(said).toMatch(/^HTTP\/1\.1 408 /);
      expect(said).toContain("application/problem+json");
      expect(said).toContain('"code":"REQUEST_TIMEOUT"');
    },
  );
});
