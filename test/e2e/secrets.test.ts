import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { freePort as closedPort } from "../helpers/free-port.js";

// A canary planted in the environment and used wherever the config takes secrets.
const CANARY = `canary-${Math.random().toString(36).slice(2)}-do-not-leak`;
let s: TestServer;
const bodies: string[] = [];
let echoPort = 0;
let closeEcho: () => Promise<void> = async () => {};

beforeAll(async () => {
  process.env.TOOLNEXUS_CANARY = CANARY;
  const port = await closedPort();
  const echo = http.createServer((req, res) => res.end(`you asked for ${req.url}`));
  await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
  echoPort = (echo.address() as { port: number }).port;
  closeEcho = () => new Promise((r) => echo.close(() => r()));
  s = await startServer({
    config: {
      auth: { apiKeys: [{ id: "ops", key: "${TOOLNEXUS_CANARY}", operator: true }] },
      http: [
        { name: "echo_url", method: "GET", url: `http://127.0.0.1:${echoPort}/v1?api_key=\${TOOLNEXUS_CANARY}` },
        {
          name: "leaky",
          method: "GET",
          url: `http://127.0.0.1:${port}/x?token=\${TOOLNEXUS_CANARY}`,
          headers: { Authorization: "Bearer ${TOOLNEXUS_CANARY}" },
        },
      ],
      mcpServers: {
        broken: { command: ["/nonexistent/bin/${TOOLNEXUS_CANARY}"], env: { API_TOKEN: "${TOOLNEXUS_CANARY}" }, timeout: 5000 },
        remote: { url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: "Bearer ${TOOLNEXUS_CANARY}" }, timeout: 2000 },
      },
      openapi: [{ spec: `http://127.0.0.1:${port}/openapi.json?key=\${TOOLNEXUS_CANARY}`, headers: { "X-Key": "${TOOLNEXUS_CANARY}" } }],
    },
  });
});
afterAll(async () => {
  await s.close();
  await closeEcho();
  delete process.env.TOOLNEXUS_CANARY;
});

async function record(res: Response): Promise<Response> {
  bodies.push(JSON.stringify(Object.fromEntries(res.headers)), await res.clone().text());
  return res;
}

describe("a secret planted in env, config and headers", () => {
  it("appears in no response and no log line", async () => {
    const auth = { authorization: `Bearer ${CANARY}` };
    const status = (await (await record(await fetch(`${s.url}/status`, { headers: auth }))).json()) as {
      sources: { name: string; state: string }[];
    };
    expect(status.sources.find((x) => x.name === "broken")?.state).toBe("failed");
    expect(status.sources.find((x) => x.name === "remote")?.state).toMatch(/failed|reconnecting/);

    const call = await record(
      await fetch(`${s.url}/tools/leaky/execute`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: "{}" }),
    );
    expect(call.status).toBe(502);
    await record(await fetch(`${s.url}/tools`, { headers: auth }));
    await record(await fetch(`${s.url}/openapi.json`, { headers: auth }));
    await record(await fetch(`${s.url}/metrics`, { headers: auth }));
    await record(await fetch(`${s.url}/tools`, { headers: { authorization: "Bearer wrong-key-0123456789" } }));

    const echoed = await record(
      await fetch(`${s.url}/tools/echo_url/execute`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: "{}",
      }),
    );
    expect(echoed.status).toBe(200);
    expect(await echoed.clone().json()).toMatchObject({ output: expect.stringContaining("[redacted]") });

    expect(bodies.length).toBeGreaterThan(10);
    for (const b of bodies) expect(b).not.toContain(CANARY);
    expect(s.logs.length).toBeGreaterThan(3);
    expect(s.logText()).not.toContain(CANARY);
  });
});
