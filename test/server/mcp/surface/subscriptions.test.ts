import http from "node:http";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type RedisServer } from "../../../helpers/redis.js";
import { startServer, type TestServer } from "../../../helpers/server.js";
import { eventually } from "../../../helpers/wait.js";

const FIXTURE = fileURLToPath(new URL("../../../fixtures/mcp/subscribe-server.mjs", import.meta.url));
const ALL = "k-all-0123456789abcdef";
const NONE = "k-none-0123456789abcdef";
type Json = Record<string, unknown>;

const config = (redisUrl?: string) => ({
  ...(redisUrl ? { redis: { url: redisUrl } } : {}),
  mcpServers: {
    // A 2025 session: subscriptions are resources/subscribe, which the fixture reports.
    old: { command: [process.execPath, FIXTURE], protocolVersion: "2025-11-25" },
    // A 2026 session: subscriptions are subscriptions/listen streams.
    new: { command: [process.execPath, FIXTURE] },
  },
  auth: {
    apiKeys: [
      { id: "all", key: ALL, tools: ["*"] },
      { id: "none", key: NONE, tools: ["nothing_*"] },
    ],
  },
});

/** A `GET /resources/events` reader on a connection of its own: its status, its events as they come, and the way to leave. */
async function events(url: string, uris: string[], key = ALL) {
  const query = uris.map((u) => `uri=${encodeURIComponent(u)}`).join("&");
  const got: { event: string; data: Json }[] = [];
  const req = http.get(`${url}/resources/events${query ? `?${query}` : ""}`, { headers: { "x-api-key": key }, agent: false });
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => req.once("response", resolve).once("error", reject));
  let buf = "";
  res.setEncoding("utf8").on("data", (chunk: string) => {
    buf += chunk;
    for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
      const frame = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const event = /^event: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (event && data) got.push({ event, data: JSON.parse(data) as Json });
    }
  });
  res.on("error", () => {});
  const ended = new Promise((r) => res.once("end", r));
  const body = async () => {
    await ended;
    return JSON.parse(buf) as Json;
  };
  return { status: res.statusCode, headers: res.headers, got, body, close: () => req.destroy() };
}

async function call(url: string, tool: string): Promise<string> {
  const res = await fetch(`${url}/tools/${tool}/execute`, {
    method: "POST",
    headers: { "x-api-key": ALL, "content-type": "application/json" },
    body: JSON.stringify({ arguments: {} }),
  });
  const body = (await res.json()) as { output?: unknown };
  return String(body.output);
}

/** A v2 SDK client of `/mcp`, 2026-07-28 or 2025. */
async function mcpClient(url: string, era: "modern" | "legacy", key = ALL): Promise<Client> {
  const client = new Client(
    { name: "subscribe-test", version: "1.0.0" },
    era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : { supportedProtocolVersions: ["2025-11-25"] },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { "x-api-key": key } } }));
  return client;
}

const upstreamSubscriptions = async (url: string) => JSON.parse(await call(url, "old_subscriptions")) as string[];

describe("resource subscriptions on one replica", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ config: config() });
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
  });

  it("delivers an upstream update to a REST reader, holds one upstream subscription per URI, and drops it when the last reader leaves", async () => {
    const uri = "old+file:///watched.txt";
    const first = await events(srv.url, [uri]);
    const second = await events(srv.url, [uri]);
    expect(first.status).toBe(200);
    expect(first.headers["content-type"]).toMatch(/^text\/event-stream/);
    await eventually(async () => (await upstreamSubscriptions(srv.url)).includes("file:///watched.txt"));
    expect(srv.app.toolnexus.mcp.subscriptions.count(uri)).toBe(2);
    await call(srv.url, "old_touch");
    for (const reader of [first, second]) await eventually(() => reader.got.some((e) => e.event === "updated" && e.data.uri === uri));
    first.close();
    await eventually(() => srv.app.toolnexus.mcp.subscriptions.count(uri) === 1);
    // One reader left: the upstream subscription stands.
    expect(await upstreamSubscriptions(srv.url)).toEqual(["file:///watched.txt"]);
    second.close();
    await eventually(async () => (await upstreamSubscriptions(srv.url)).length === 0);
    expect(srv.app.toolnexus.mcp.subscriptions.count(uri)).toBe(0);
  });

  it("tells a REST reader when the merged resource list changes", async () => {
    const reader = await events(srv.url, []);
    await eventually(() => reader.status === 200);
    await call(srv.url, "old_add_resource");
    await eventually(() => reader.got.some((e) => e.event === "list_changed" && e.data.list === "resources"), { timeoutMs: 10_000 });
    reader.close();
  });

  it("answers a URI the caller may not see as one that does not exist, and refuses too many", async () => {
    const hidden = await events(srv.url, ["old+file:///watched.txt"], NONE);
    const unknown = await events(srv.url, ["gone+file:///watched.txt"], ALL);
    expect(hidden.status).toBe(404);
    expect(unknown.status).toBe(404);
    const [h, u] = await Promise.all([hidden.body(), unknown.body()]);
    expect(h).toMatchObject({ code: "RESOURCE_NOT_FOUND" });
    expect(String(h?.detail).replace("old", "gone")).toBe(u?.detail);
    const many = Array.from({ length: 1001 }, (_, i) => `x:${i}`);
    const tooMany = await events(srv.url, many);
    expect(tooMany.status).toBe(400);
    expect(await tooMany.body()).toMatchObject({ code: "INVALID_REQUEST", detail: expect.stringMatching(/1000/) });
    expect(srv.app.toolnexus.mcp.subscriptions.count("x:0")).toBe(0);
  });

  it("delivers updates on a 2026 subscriptions/listen stream and releases them when it closes", async () => {
    const uri = "new+file:///watched.txt";
    const client = await mcpClient(srv.url, "modern");
    const updated: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (n) => void updated.push(n.params.uri));
    const sub = await client.listen({ resourceSubscriptions: [uri], resourcesListChanged: true });
    expect(sub.honoredFilter).toMatchObject({ resourceSubscriptions: [uri], resourcesListChanged: true });
    expect(srv.app.toolnexus.mcp.subscriptions.count(uri)).toBe(1);
    // The upstream listen stream opens in the background: touch until the update comes through.
    await eventually(
      async () => {
        await call(srv.url, "new_touch");
        return updated.includes(uri);
      },
      { everyMs: 200, timeoutMs: 10_000 },
    );
    await sub.close();
    await eventually(() => srv.app.toolnexus.mcp.subscriptions.count(uri) === 0);
    await client.close();
  });

  it("refuses a 2026 listen for a URI the caller may not see or for too many, with -32602", async () => {
    const client = await mcpClient(srv.url, "modern", NONE);
    const hidden = await client.listen({ resourceSubscriptions: ["old+file:///watched.txt"] }).then(
      () => undefined,
      (e: { code: number; message: string }) => e,
    );
    expect(hidden).toMatchObject({ code: -32602, message: expect.stringMatching(/Resource not found: old\+file:\/\/\/watched.txt/) });
    await client.close();
    const all = await mcpClient(srv.url, "modern");
    const many = Array.from({ length: 10_000 }, (_, i) => `old+file:///${i}`);
    const tooMany = await all.listen({ resourceSubscriptions: many }).then(
      () => undefined,
      (e: { code: number; message: string }) => e,
    );
    expect(tooMany).toMatchObject({ code: -32602, message: expect.stringMatching(/Too many resource subscriptions: 10000/) });
    await all.close();
  });

  it("answers a 2025 resources/subscribe and unsubscribe over HTTP, and refuses a URI the caller may not see", async () => {
    const client = await mcpClient(srv.url, "legacy");
    expect(client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true, listChanged: true });
    expect(await client.subscribeResource({ uri: "old+file:///watched.txt" })).toEqual({});
    expect(await client.unsubscribeResource({ uri: "old+file:///watched.txt" })).toEqual({});
    await client.close();
    const none = await mcpClient(srv.url, "legacy", NONE);
    const hidden = await none.subscribeResource({ uri: "old+file:///watched.txt" }).then(
      () => undefined,
      (e: { code: number }) => e,
    );
    expect(hidden).toMatchObject({ code: -32602 });
    await none.close();
  });
});

describe("resource subscriptions across two replicas sharing Redis", () => {
  let redis: RedisServer;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    redis = await startRedis();
    [a, b] = await Promise.all([startServer({ config: config(redis.url) }), startServer({ config: config(redis.url) })]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await redis?.stop();
  });

  it("an update seen by replica A reaches a subscriptions/listen client on replica B and a REST reader", async () => {
    const uri = "new+file:///watched.txt";
    // Each replica runs its own copy of the stdio server: only A's is touched, so B hears of it over Redis.
    const reader = await events(a.url, [uri]);
    const client = await mcpClient(b.url, "modern");
    const updated: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (n) => void updated.push(n.params.uri));
    const sub = await client.listen({ resourceSubscriptions: [uri] });
    await eventually(
      async () => {
        await call(a.url, "new_touch");
        return updated.includes(uri) && reader.got.some((e) => e.event === "updated" && e.data.uri === uri);
      },
      { everyMs: 200, timeoutMs: 10_000 },
    );
    // B's own copy never changed: what B delivered came from A.
    expect((await client.readResource({ uri })).contents).toEqual([{ uri, mimeType: "text/plain", text: "version 0" }]);
    await sub.close();
    reader.close();
    await client.close();
    await eventually(() => a.app.toolnexus.mcp.subscriptions.count(uri) === 0 && b.app.toolnexus.mcp.subscriptions.count(uri) === 0);
  });
});
