import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Dispatcher } from "undici";
import { silentLogger } from "../../src/core/types.js";
import { EgressGuard } from "../../src/net/egress-guard.js";
import { webfetchTool } from "../../src/sources/builtins/tools/webfetch.js";
import { httpTool } from "../../src/sources/http/http-tool.js";

/**
 * The documented lockdown (deny loopback) against the other spellings of the local host:
 * Linux sends a connect to 0.0.0.0 or :: to the local host, and an IPv4-mapped address to
 * its IPv4 form. A real server listening on every local address counts what reaches it.
 */
const LOCKDOWN = { deny: ["127.0.0.0/8", "::1"] };
const IPV4_FORMS = ["0.0.0.0", "0"];
const IPV6_FORMS = ["[::]", "[::ffff:0.0.0.0]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]"];
let FORMS = [...IPV4_FORMS, ...IPV6_FORMS];

let server: Server;
let port = 0;
let hits = 0;
let dispatcher: Dispatcher;

beforeAll(async () => {
  server = createServer((_req, res) => {
    hits++;
    res.end("local secret");
  });
  // "::" is dual-stack: IPv4 (via mapped addresses) and IPv6 loopback both land here. A host
  // without IPv6 can only be reached (and tried) through the IPv4 spellings.
  const listen = (host: string) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, host, () => resolve());
    });
  await listen("::").catch(async () => {
    FORMS = IPV4_FORMS;
    await listen("0.0.0.0");
  });
  port = (server.address() as AddressInfo).port;
  dispatcher = new EgressGuard(LOCKDOWN).dispatcher();
});
afterAll(async () => {
  await dispatcher.close();
  await new Promise<void>((r) => server.close(() => r()));
});

describe("egress lockdown against other spellings of loopback", () => {
  it("the server is reachable without the lockdown (the forms do reach it)", async () => {
    const before = hits;
    const open = webfetchTool({ egress: {}, limits: { outputLimitBytes: 4096, maxFileBytes: 1 << 20, maxScanFiles: 10 } });
    for (const h of FORMS) expect((await open.execute({ url: `http://${h}:${port}/`, format: "text" })).output, h).toBe("local secret");
    expect(hits - before).toBe(FORMS.length);
  });

  it("webfetch refuses every form", async () => {
    const before = hits;
    const tool = webfetchTool({ egress: LOCKDOWN, limits: { outputLimitBytes: 4096, maxFileBytes: 1 << 20, maxScanFiles: 10 } });
    for (const h of FORMS) {
      const r = await tool.execute({ url: `http://${h}:${port}/` });
      expect(r.isError, h).toBe(true);
      expect(r.output, h).toMatch(/refused: denied by egress\.deny$/);
    }
    expect(hits).toBe(before);
  });

  it("an http tool with a {host} placeholder refuses every form", async () => {
    const before = hits;
    const tool = httpTool({ name: "t", method: "GET", url: `http://{host}:${port}/` }, { dispatcher, secrets: [], logger: silentLogger });
    // Only the IPv4 spellings: an IPv6 value is percent-encoded ("%3A"), which no URL host accepts.
    for (const host of ["0.0.0.0", "0", "0.0.0.1"]) {
      const err = await tool.execute({ host }).catch((e: unknown) => e);
      expect((err as Error).message, host).toMatch(/refused: denied by egress\.deny$/);
    }
    expect(hits).toBe(before);
  });
});
