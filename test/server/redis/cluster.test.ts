import { afterAll, beforeAll } from "vitest";
import { executionsOnRedis } from "../../helpers/executions-on-redis.js";
import { sharedStateOnRedis } from "../../helpers/shared-state-on-redis.js";
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

// Rate limits, pins, the vault and change events: one key or channel per command, each routed to its slot.
sharedStateOnRedis("rate limits, pins, the vault and change events on a Redis Cluster", () => ({
  cluster: cluster.nodes,
  namespace: "tnx-shared",
}));
