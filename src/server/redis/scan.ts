import type { RedisClient } from "./connect-redis.js";

/**
 * Every key matching `pattern`, from every primary. SCAN walks one server's keys: on a Cluster
 * the client would send it to any one node, so each primary is walked in turn.
 */
export async function scanAll(redis: RedisClient, pattern: string, count: number): Promise<string[]> {
  const nodes = "nodes" in redis && typeof redis.nodes === "function" ? redis.nodes("master") : [redis];
  const found = new Set<string>();
  for (const node of nodes) {
    let cursor = "0";
    do {
      const [next, keys] = await node.scan(cursor, "MATCH", pattern, "COUNT", count);
      for (const k of keys) found.add(k);
      cursor = next;
    } while (cursor !== "0");
  }
  return [...found];
}
