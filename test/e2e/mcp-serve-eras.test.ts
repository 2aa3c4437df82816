import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type RedisServer } from "../helpers/redis.js";
import { startServeProcess, type ServeProcess } from "../helpers/serve-process.js";

const root = path.resolve(import.meta.dirname, "../..");
const KEY = "eras-key-0123456789abcdef";
const MODERN = "2026-07-28";
type Json = Record<string, unknown>;

const config = (extra: string[] = []) =>
  [
    'redis: { url: "${REDIS_URL}" }',
    "auth:",
    "  apiKeys:",
    `    - { id: admin, key: ${KEY} }`,
    `plugins: [${JSON.stringify(path.join(root, "examples/config/plugins/*.mjs"))}]`,
    ...extra,
  ].join("\n");

/** A fetch that sends each request to the next replica in turn, recording every request body. */
function alternating(replicas: ServeProcess[], seen: { headers: Headers; body: Json }[]): typeof fetch {
  let n = 0;
  return async (input, init) => {
    const target = new URL(String(input instanceof Request ? input.url : input));
    target.port = new URL(replicas[n++ % replicas.length]!.url).port;
    if (typeof init?.body === "string") seen.push({ headers: new Headers(init.headers), body: JSON.parse(init.body) as Json });
    return fetch(target, init);
  };
}

/** A v2 SDK client of one era against `/mcp`, its requests alternating between the replicas. */
async function connect(replicas: ServeProcess[], era: "modern" | "legacy", seen: { headers: Headers; body: Json }[] = []): Promise<Client> {
  const client = new Client(
    { name: `eras-${era}`, version: "1.0.0" },
    era === "modern" ? { versionNegotiation: { mode: { pin: MODERN } } } : { supportedProtocolVersions: ["2025-11-25"] },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${replicas[0]!.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${KEY}` } },
      fetch: alternating(replicas, seen),
    }),
  );
  return client;
}

/** A raw POST to `/mcp` with these headers over the ones a recorded request had. */
async function replay(
  url: string,
  recorded: { headers: Headers; body: Json },
  headers: Record<string, string>,
  body: Json = recorded.body,
) {
  const h = new Headers(recorded.headers);
  for (const [k, v] of Object.entries(headers)) h.set(k, v);
  const res = await fetch(`${url}/mcp`, { method: "POST", headers: h, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Json };
}

describe("/mcp serves 2026-07-28 and 2025 clients on two replicas sharing Redis", () => {
  let redis: RedisServer;
  let a: ServeProcess;
  let b: ServeProcess;
  let aDir: string;
  let bDir: string;

  beforeAll(async () => {
    redis = await startRedis();
    const env = { ...process.env, REDIS_URL: redis.url };
    // One config directory per replica (kept for the whole file): a change to b's reloads b only.
    aDir = await mkdtemp(path.join(os.tmpdir(), "toolnexus-eras-"));
    bDir = await mkdtemp(path.join(os.tmpdir(), "toolnexus-eras-"));
    for (const dir of [aDir, bDir]) await writeFile(path.join(dir, "toolnexus.yaml"), config());
    [a, b] = await Promise.all([startServeProcess(aDir, env), startServeProcess(bDir, env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.stop();
    await Promise.all([aDir, bDir].map((d) => d && rm(d, { recursive: true, force: true })));
  });

  it.each(["modern", "legacy"] as const)("a %s client lists and calls tools with no affinity", async (era) => {
    const client = await connect([a, b], era);
    try {
      expect(client.getProtocolEra()).toBe(era);
      const first = (await client.listTools()).tools.map((t) => t.name);
      expect(first).toContain("echo");
      // A stable order: the same list from the other replica.
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(first);
      for (let i = 0; i < 4; i++) {
        expect(await client.callTool({ name: "echo", arguments: { text: `${era} #${i}` } })).toMatchObject({
          content: [{ type: "text", text: `${era} #${i}` }],
        });
      }
      const unknown = await client.callTool({ name: "no_such_tool", arguments: {} }).then(
        () => undefined,
        (e: { code: number }) => e,
      );
      expect(unknown).toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
    const served = (r: ServeProcess) => r.logs().filter((l) => l.tool === "echo" && l.transport === "mcp" && l.outcome === "ok").length;
    for (const replica of [a, b]) await expect.poll(() => served(replica), { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
  });

  it("a 2026 tools/list carries cache hints, private because the list depends on the caller", async () => {
    const seen: { headers: Headers; body: Json }[] = [];
    const client = await connect([a], "modern", seen);
    await client.listTools();
    await client.close();
    const list = seen.find((r) => r.body.method === "tools/list")!;
    const res = await replay(a.url, list, {});
    expect(res).toMatchObject({ status: 200, body: { result: { ttlMs: 60_000, cacheScope: "private" } } });
  });

  it("refuses a 2026 request whose Mcp-Method disagrees with its body, an unknown revision and a batch", async () => {
    const seen: { headers: Headers; body: Json }[] = [];
    const client = await connect([a], "modern", seen);
    await client.listTools();
    await client.close();
    const list = seen.find((r) => r.body.method === "tools/list")!;
    expect(await replay(a.url, list, { "mcp-method": "tools/call" })).toMatchObject({ status: 400, body: { error: { code: -32020 } } });

    const params = list.body.params as { _meta: Json };
    const future = {
      ...list.body,
      params: { ...params, _meta: { ...params._meta, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
    };
    const unknown = await replay(a.url, list, { "mcp-protocol-version": "2099-01-01" }, future);
    expect(unknown).toMatchObject({ status: 400, body: { error: { code: -32022, data: { supported: [MODERN] } } } });

    const batch = await fetch(`${a.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }]),
    });
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({ error: { code: -32600, message: expect.stringMatching(/batch/) } });
  });

  it("subscriptions/listen on one replica hears a reload of the other", async () => {
    const client = await connect([a], "modern");
    const changed = new Promise<void>((resolve) => client.setNotificationHandler("notifications/tools/list_changed", () => resolve()));
    const sub = await client.listen({ toolsListChanged: true });
    try {
      // b alone reloads (its own config file): a hears of it over Redis.
      await writeFile(path.join(bDir, "toolnexus.yaml"), config(["server: { mcp: { pageSize: 50 } }"]));
      await changed;
    } finally {
      await sub.close();
      await client.close();
    }
  });
});
