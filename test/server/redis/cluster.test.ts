import { afterAll, beforeAll, expect, it } from "vitest";
import pino from "pino";
import type { ServerEvent } from "@modelcontextprotocol/server";
import { connectRedis, redisHealth, type RedisClient } from "../../../src/server/redis/connect-redis.js";
import { McpEvents } from "../../../src/server/mcp/events.js";
import { executionsOnRedis } from "../../helpers/executions-on-redis.js";
import { startCluster, type ClusterSet } from "../../helpers/redis-ha.js";

// Three redis-server nodes in cluster mode (no replicas), joined by redis-cli --cluster create.
let cluster: ClusterSet;
beforeAll(async () => {
  cluster = await startCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

// The executions suite of one Redis, unchanged, against the Cluster: every script and MULTI
// (the record with its BullMQ job) must stay in one slot or Redis refuses it with CROSSSLOT.
executionsOnRedis("executions on a Redis Cluster, two servers", () => ({ cluster: cluster.nodes, namespace: "tnx-cluster" }));

it("change events reach the other replica over the Cluster's pub/sub, and /readyz's view says cluster", async () => {
  const log = pino({ level: "silent" });
  const config = { cluster: cluster.nodes, namespace: "tnx-events" };
  const conns: RedisClient[] = [];
  const connect = (blocking: boolean) => {
    const c = connectRedis(config, log, { blocking });
    conns.push(c);
    return c;
  };
  const bus = (commands: RedisClient) => new McpEvents({ publish: (ch, m) => commands.publish(ch, m), subscriber: () => connect(true) });
  const a = bus(connect(false));
  const b = bus(connect(false));
  try {
    const heard: ServerEvent[] = [];
    b.subscribe((e) => heard.push(e));
    await new Promise((r) => setTimeout(r, 300)); // b's subscription is confirmed
    const event = { kind: "toolsListChanged" } as unknown as ServerEvent;
    const end = Date.now() + 10_000;
    while (heard.length === 0 && Date.now() < end) {
      a.publish(event);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(heard[0]).toEqual(event);
    expect(redisHealth(conns[0] as RedisClient)).toEqual({ mode: "cluster", state: "connected" });
  } finally {
    a.close();
    b.close();
    for (const c of conns) c.disconnect();
  }
});
