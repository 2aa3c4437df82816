import type { ServerEvent } from "@modelcontextprotocol/server";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RedisConfig } from "../../src/config/schema/index.js";
import { RedisPinStore } from "../../src/governance/pin-redis-store.js";
import type { Pin } from "../../src/governance/tool-definition.js";
import { RedisVaultStore } from "../../src/server/credentials/redis-vault-store.js";
import { eventsChannel, McpEvents } from "../../src/server/mcp/events.js";
import { connectRedis, redisHealth, type RedisClient } from "../../src/server/redis/connect-redis.js";
import { startServer, type TestServer } from "./server.js";
import { testTools } from "./tools.js";

const KEY = "tight-key-0123456789abcdef";
const log = pino({ level: "silent" });

/**
 * What the replicas share in Redis besides executions, for any `redis:` (a Sentinel-managed
 * primary, a Cluster): a key's rate-limit budget, the pins, the credential vault and the change
 * events, each written through one connection and read through another, as two replicas do. `redis()` is
 * read in beforeAll; its namespace keeps runs apart.
 */
export function sharedStateOnRedis(title: string, redis: () => RedisConfig & { namespace: string }): void {
  describe(title, () => {
    const conns: RedisClient[] = [];
    const connect = async (blocking = false) => {
      const c = connectRedis(redis(), log, { blocking });
      conns.push(c);
      if (c.status !== "ready") await new Promise((r) => c.once("ready", r));
      return c;
    };
    let a: TestServer;
    let b: TestServer;

    beforeAll(async () => {
      const config = { redis: redis(), auth: { apiKeys: [{ id: "tight", key: KEY, rateLimit: { max: 3, timeWindowMs: 60_000 } }] } };
      [a, b] = await Promise.all([startServer({ config, tools: testTools() }), startServer({ config, tools: testTools() })]);
    });
    afterAll(async () => {
      await Promise.all([a?.close(), b?.close()]);
      for (const c of conns) c.disconnect();
    });

    it("a key's rate limit is one budget across both replicas", async () => {
      const statuses: number[] = [];
      for (const s of [a, b, a, b]) statuses.push((await fetch(`${s.url}/tools`, { headers: { "x-api-key": KEY } })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    });

    it("a pin saved through one connection is loaded, and announced, through another", async () => {
      const key = `${redis().namespace}:pins`;
      const one = new RedisPinStore(await connect(), key);
      const other = new RedisPinStore(await connect(), key, await connect(true));
      let announced = 0;
      other.watch(() => announced++);
      await new Promise((r) => setTimeout(r, 200)); // the subscription is confirmed
      const pin: Pin = {
        digest: "d1",
        definition: { name: "echo", description: "echoes", inputSchema: { type: "object" } },
        pinnedAt: new Date(0).toISOString(),
      };
      await one.save("echo", pin);
      expect((await other.load()).get("echo")).toEqual(pin);
      await expect.poll(() => announced).toBeGreaterThan(0);
    });

    it("the vault: an entry written through one connection is read through another, a login's state claimed once", async () => {
      const conn = await connect();
      const one = new RedisVaultStore(conn, redis().namespace);
      const other = new RedisVaultStore(await connect(), redis().namespace);
      await one.set("owner-digest", "saas", "sealed-blob");
      expect(await other.get("owner-digest", "saas")).toBe("sealed-blob");
      expect(await other.list("owner-digest")).toEqual({ saas: "sealed-blob" });
      // Kept under the namespace, so gateways sharing one Redis keep their vaults apart.
      expect(await conn.exists(`${redis().namespace}:vault:owner-digest`)).toBe(1);
      expect(await one.claimOnce("login-1", 60_000)).toBe(true);
      expect(await other.claimOnce("login-1", 60_000)).toBe(false);
      expect(await other.delete("owner-digest", "saas")).toBe(true);
      expect(await new RedisVaultStore(await connect(), redis().namespace).get("owner-digest", "saas")).toBeUndefined();
    });

    it("change events published through one replica reach the other, not another namespace; /readyz names the topology", async () => {
      const bus = async (namespace: string) => {
        const commands = await connect();
        const subscriber = () => connectRedis(redis(), log, { blocking: true });
        return new McpEvents({ channel: eventsChannel(namespace), publish: (ch, m) => commands.publish(ch, m), subscriber });
      };
      const ns = redis().namespace;
      const [one, other, stranger, neighbour] = [await bus(ns), await bus(ns), await bus(`${ns}-other`), await bus(`${ns}-other`)];
      // Published until heard: a subscription is confirmed at some point after subscribe().
      const untilHeard = async (from: McpEvents, heard: ServerEvent[], event: ServerEvent) => {
        const end = Date.now() + 10_000;
        while (heard.length === 0 && Date.now() < end) {
          from.publish(event);
          await new Promise((r) => setTimeout(r, 200));
        }
        expect(heard[0]).toEqual(event);
      };
      try {
        const heard: ServerEvent[] = [];
        const overheard: ServerEvent[] = [];
        other.subscribe((e) => heard.push(e));
        stranger.subscribe((e) => overheard.push(e));
        // The other namespace's listener is shown to listen (to its own namespace) first.
        await untilHeard(neighbour, overheard, { kind: "promptsListChanged" } as unknown as ServerEvent);
        overheard.length = 0;
        await untilHeard(one, heard, { kind: "toolsListChanged" } as unknown as ServerEvent);
        await new Promise((r) => setTimeout(r, 300));
        expect(overheard).toEqual([]);
        const mode = redis().cluster ? "cluster" : redis().sentinels ? "sentinel" : "single";
        expect(redisHealth(conns[conns.length - 1]!)).toEqual({ mode, state: "connected" });
      } finally {
        for (const b of [one, other, stranger, neighbour]) b.close();
      }
    });
  });
}
