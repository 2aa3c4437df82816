import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer, type ToolnexusServer } from "../../../src/server/build-server.js";
import type { ToolnexusConfigInput } from "../../../src/create-toolkit.js";
import { HostGuard } from "../../../src/server/http/host-guard.js";
import { rawRequest } from "../../helpers/raw-http.js";
import { testTools } from "../../helpers/tools.js";

const PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}';

/** A service bound to `host`, reached over 127.0.0.1. */
async function serve(host: string, server: Record<string, unknown> = {}): Promise<{ app: ToolnexusServer; url: string }> {
  const app = await buildServer({ logger: false, tools: testTools(), config: { server } as ToolnexusConfigInput });
  await app.listen({ host, port: 0 });
  await app.toolnexus.ready;
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

/** GET /tools and POST /mcp with this Host (and Origin): their two statuses, and a refusal's body. */
async function both(url: string, host: string, origin?: string): Promise<{ rest: number; mcp: number; body: string }> {
  const extra = origin ? `Origin: ${origin}\r\n` : "";
  const rest = await rawRequest(url, `GET /tools HTTP/1.1\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\n`);
  const mcp = await rawRequest(
    url,
    `POST /mcp HTTP/1.1\r\nHost: ${host}\r\n${extra}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${PING.length}\r\nConnection: close\r\n\r\n${PING}`,
  );
  return { rest: rest.status, mcp: mcp.status, body: rest.status === 403 ? rest.body : mcp.body };
}

describe("DNS-rebinding protection: Host and Origin on every route", () => {
  const apps: ToolnexusServer[] = [];
  let loopback: string;
  let configured: string;
  let open: string;
  let openConfigured: string;

  beforeAll(async () => {
    const started = await Promise.all([
      serve("127.0.0.1"),
      serve("127.0.0.1", { allowedHosts: ["tools.example.com", "dev.example.com:8443"], allowedOrigins: ["https://app.example.com"] }),
      serve("0.0.0.0", { host: "0.0.0.0" }),
      serve("0.0.0.0", { host: "0.0.0.0", allowedHosts: ["tools.example.com"], allowedOrigins: ["https://app.example.com"] }),
    ]);
    apps.push(...started.map((s) => s.app));
    [loopback, configured, open, openConfigured] = started.map((s) => s.url) as [string, string, string, string];
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
  });

  it.each(["localhost", "localhost:8080", "127.0.0.1", "127.0.0.1:1234", "[::1]", "[::1]:8080", "LOCALHOST"])(
    "a loopback bind allows Host %s",
    async (host) => {
      expect(await both(loopback, host)).toMatchObject({ rest: 200, mcp: 200 });
    },
  );

  it.each(["evil.example.com", "evil.example.com:80", "127.0.0.1.evil.example.com", "localhost.evil.example.com", "0.0.0.0"])(
    "a loopback bind refuses Host %s with 403 FORBIDDEN_HOST",
    async (host) => {
      const r = await both(loopback, host);
      expect(r).toMatchObject({ rest: 403, mcp: 403 });
      expect(JSON.parse(r.body)).toMatchObject({ status: 403, code: "FORBIDDEN_HOST" });
    },
  );

  it("a loopback bind allows loopback origins and refuses the others", async () => {
    for (const origin of ["http://localhost:3000", "http://127.0.0.1", "https://[::1]:8443"]) {
      expect(await both(loopback, "localhost", origin)).toMatchObject({ rest: 200, mcp: 200 });
    }
    for (const origin of ["http://evil.example.com", "null", "http://localhost.evil.example.com", "file://localhost"]) {
      expect(await both(loopback, "localhost", origin)).toMatchObject({ rest: 403, mcp: 403 });
    }
  });

  it("configured lists replace the loopback default", async () => {
    expect(await both(configured, "tools.example.com")).toMatchObject({ rest: 200, mcp: 200 });
    expect(await both(configured, "tools.example.com:9999")).toMatchObject({ rest: 200, mcp: 200 });
    expect(await both(configured, "dev.example.com:8443")).toMatchObject({ rest: 200, mcp: 200 });
    expect(await both(configured, "dev.example.com:8444")).toMatchObject({ rest: 403, mcp: 403 });
    expect(await both(configured, "localhost")).toMatchObject({ rest: 403, mcp: 403 });
    expect(await both(configured, "tools.example.com", "https://app.example.com")).toMatchObject({ rest: 200, mcp: 200 });
    expect(await both(configured, "tools.example.com", "http://localhost:3000")).toMatchObject({ rest: 403, mcp: 403 });
  });

  it("a non-loopback bind allows any Host and Origin by default, and checks what is configured", async () => {
    expect(await both(open, "evil.example.com", "http://evil.example.com")).toMatchObject({ rest: 200, mcp: 200 });
    expect(await both(openConfigured, "tools.example.com", "https://app.example.com")).toMatchObject({ rest: 200, mcp: 200 });
    expect(await both(openConfigured, "evil.example.com")).toMatchObject({ rest: 403, mcp: 403 });
    expect(await both(openConfigured, "tools.example.com", "http://evil.example.com")).toMatchObject({ rest: 403, mcp: 403 });
  });
});

describe("the probes are exempt from the Host and Origin check", () => {
  let app: ToolnexusServer;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await serve("127.0.0.1", { allowedHosts: ["tools.example.com"], allowedOrigins: ["https://app.example.com"] }));
  });
  afterAll(async () => {
    await app.close();
  });

  const get = (path: string, host: string, extra = "") =>
    rawRequest(url, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\n`);

  it.each(["127.0.0.1", "10.1.2.3:8080", "evil.example.com"])("/healthz and /readyz answer 200 to Host %s", async (host) => {
    expect((await get("/healthz", host)).status).toBe(200);
    expect((await get("/readyz", host)).status).toBe(200);
    expect((await get("/readyz", host, "Origin: http://evil.example.com\r\n")).status).toBe(200);
  });

  it("every other route still refuses such a Host with 403 FORBIDDEN_HOST", async () => {
    for (const host of ["127.0.0.1", "10.1.2.3:8080"]) {
      const r = await get("/tools", host);
      expect(r.status).toBe(403);
      expect(JSON.parse(r.body)).toMatchObject({ code: "FORBIDDEN_HOST" });
      expect((await get("/status", host)).status).toBe(403);
      // A path that only looks like a probe is not one.
      expect((await get("/healthz/", host)).status).toBe(403);
    }
    expect((await get("/tools", "tools.example.com")).status).toBe(200);
  });

  it("a probe with a 10 KB Host gets a clean answer, and the service goes on", async () => {
    const r = await get("/readyz", `${"a".repeat(10 * 1024)}.example.com`);
    expect(r.status === 200 || (r.status >= 400 && r.status < 500)).toBe(true);
    const other = await get("/tools", `${"a".repeat(10 * 1024)}.example.com`);
    expect(other.status).toBe(403);
    expect((await get("/healthz", "10.1.2.3:8080")).status).toBe(200);
  });
});

describe("HostGuard", () => {
  it("lets the last allowed Host through again, and still refuses every other that is not allowed", () => {
    const guard = new HostGuard(() => "127.0.0.1");
    const config = {};
    const seq: [string, boolean][] = [
      ["localhost:1", true],
      ["evil.example.com", false],
      ["localhost:1", true],
      ["localhost:1", true],
      ["evil.example.com", false],
      ["evil.example.com", false],
      ["LOCALHOST:2", true],
      ["127.0.0.1.evil.example.com", false],
    ];
    for (const [host, allowed] of seq) expect(guard.check(config, host, undefined)?.code).toBe(allowed ? undefined : "FORBIDDEN_HOST");
  });
});
