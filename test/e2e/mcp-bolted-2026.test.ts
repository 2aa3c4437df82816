import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { execute } from "../sources/mcp/fixture.js";
import { SHAPES_RESULT, startBolted2026Server, type Bolted2026Server } from "../fixtures/mcp/bolted-2026-server.js";

/**
 * A 2026-07-28 server that leaves `resultType` out of its tools/call results (as the
 * conformance suite's reference server does): the result is read as complete and passes
 * through as sent, instead of being refused as malformed (502).
 */
describe("a 2026 upstream whose tools/call results carry no resultType", () => {
  let srv: TestServer;
  let upstream: Bolted2026Server;

  beforeAll(async () => {
    upstream = await startBolted2026Server();
    srv = await startServer({ config: { mcpServers: { bolted: { url: upstream.url, prefix: false } } } });
  }, 30_000);
  afterAll(async () => {
    await srv?.close();
    await upstream?.close();
  });

  it("negotiates 2026-07-28 with it", async () => {
    const { sources } = (await (await fetch(`${srv.url}/status`)).json()) as { sources: { name: string; protocolVersion?: string }[] };
    expect(sources.find((s) => s.name === "bolted")).toMatchObject({ protocolVersion: "2026-07-28" });
  });

  it("passes the result to a REST caller with every part", async () => {
    const r = await execute(srv.url, "shapes");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ output: "a pixel", isError: false, metadata: { content: SHAPES_RESULT.content } });
  });

  it.each(["modern", "legacy"] as const)("passes the result to a %s /mcp client unchanged", async (era) => {
    const client = new Client(
      { name: "bolted", version: "1.0.0" },
      era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : { supportedProtocolVersions: ["2025-11-25"] },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`)));
    try {
      const result = await client.callTool({ name: "shapes", arguments: {} });
      expect(result.content).toEqual(SHAPES_RESULT.content);
      expect(result.isError ?? false).toBe(false);
    } finally {
      await client.close();
    }
  });

  it("reads an answer of JSON lines under application/json", async () => {
    const r = await execute(srv.url, "lines");
    expect(r).toMatchObject({ status: 200, body: { output: "lines done", isError: false } });
  });

  it("tells a client which capability the upstream needs (-32021)", async () => {
    const r = await execute(srv.url, "needs_sampling");
    expect(r).toMatchObject({
      status: 200,
      body: { isError: true, metadata: { mcpErrorCode: -32021, requiredCapabilities: { sampling: {} } } },
    });
    const client = new Client({ name: "bolted", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`)));
    try {
      const err = await client.callTool({ name: "needs_sampling", arguments: {} }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProtocolError);
      expect(err).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } });
    } finally {
      await client.close();
    }
  });
});
