import { afterAll, beforeAll } from "vitest";
import { executionsOnRedis } from "../../helpers/executions-on-redis.js";
import { startSentinel, type SentinelSet } from "../../helpers/redis-ha.js";

// A primary, its replica and three sentinels (quorum 2) on free ports.
let sentinel: SentinelSet;
beforeAll(async () => {
  sentinel = await startSentinel();
});
afterAll(async () => {
  await sentinel?.stop();
});

// The executions suite of one Redis, unchanged, against the primary the sentinels name.
executionsOnRedis("executions on a Sentinel-managed primary, two servers", () => ({
  sentinels: sentinel.sentinels,
  name: sentinel.name,
  namespace: "tnx-sentinel",
}));
