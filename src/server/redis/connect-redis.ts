import { Redis, type RedisOptions } from "ioredis";
import type { FastifyBaseLogger } from "fastify";

/**
 * A connection to the shared Redis of several replicas. Commands fail at once
 * while Redis is unreachable (no offline queue) so a request answers 503 instead of hanging,
 * and the client reconnects by itself. `blocking` is for BullMQ workers and subscribers,
 * which must wait for Redis rather than fail.
 */
export function connectRedis(url: string, log: FastifyBaseLogger, opts: { blocking?: boolean; name?: string } = {}): Redis {
  const options: RedisOptions = opts.blocking
    ? { maxRetriesPerRequest: null }
    : { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 5_000 };
  const redis = new Redis(url, {
    ...options,
    connectionName: `toolnexus${opts.name ? `-${opts.name}` : ""}`,
    // Reconnect quickly but not in a hot loop: at most one attempt per second.
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  });
  // Without a listener an unreachable Redis would crash the process; say it once per outage.
  let down = false;
  redis.on("error", (err: Error) => {
    if (down) return;
    down = true;
    log.warn({ err: err.message, connection: opts.name }, "redis unreachable");
  });
  redis.on("ready", () => {
    if (down) log.info({ connection: opts.name }, "redis reachable again");
    down = false;
  });
  return redis;
}

/**
 * Settles once `redis` is connected or has failed its first attempt. Start-up waits on it so a
 * replica is not ready before it can reach a reachable Redis (its fail-fast commands would answer
 * 503 for the first moments), and never waits for an unreachable one (the rest still serves).
 */
export function firstAttempt(redis: Redis): Promise<void> {
  if (redis.status === "ready") return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      for (const event of ["ready", "error", "end"]) redis.off(event, done);
      resolve();
    };
    for (const event of ["ready", "error", "end"]) redis.once(event, done);
  });
}
