import { Cluster, Redis, type ClusterOptions, type RedisOptions } from "ioredis";
import type { FastifyBaseLogger } from "fastify";
import type { RedisConfig } from "../../config/schema/index.js";

/** A client of the shared Redis: one server or a Sentinel-managed primary (`Redis`), or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

/** What `/readyz` says of Redis: how this replica's command connection sees it right now. */
export interface RedisHealth {
  mode: "single" | "sentinel" | "cluster";
  state: "connected" | "unreachable";
  /** When it became unreachable (absent while connected). */
  since?: string;
}

const health = new WeakMap<RedisClient, RedisHealth>();

/**
 * A connection to the shared Redis of several replicas, wherever `redis:` says it is: a URL,
 * sentinels (the client asks them for the primary and follows a failover by itself), or a
 * Cluster (the client follows slots and their moves). Commands fail at once while Redis is
 * unreachable (no offline queue) so a request answers 503 instead of hanging, and the client
 * reconnects by itself. `blocking` is for BullMQ workers and subscribers, which must wait for
 * Redis rather than fail.
 */
export function connectRedis(config: RedisConfig, log: FastifyBaseLogger, opts: { blocking?: boolean; name?: string } = {}): RedisClient {
  const perCommand: RedisOptions = opts.blocking ? { maxRetriesPerRequest: null } : { maxRetriesPerRequest: 1, commandTimeout: 5_000 };
  const common: RedisOptions = {
    ...perCommand,
    connectionName: `toolnexus${opts.name ? `-${opts.name}` : ""}`,
    // Reconnect quickly but not in a hot loop: at most one attempt per second.
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  };
  const offlineQueue = { enableOfflineQueue: Boolean(opts.blocking) };
  const redis = config.cluster
    ? new Cluster(config.cluster, clusterOptions(config, common, offlineQueue))
    : config.url
      ? new Redis(config.url, { ...common, ...offlineQueue })
      : new Redis(sentinelOptions(config, { ...common, ...offlineQueue }));
  const state: RedisHealth = { mode: config.cluster ? "cluster" : config.sentinels ? "sentinel" : "single", state: "unreachable" };
  health.set(redis, state);
  // Without a listener an unreachable Redis would crash the process; say it once per outage.
  let down = false;
  const lost = () => {
    if (state.state === "connected") Object.assign(state, { state: "unreachable", since: new Date().toISOString() });
  };
  redis.on("error", (err: Error) => {
    lost();
    if (down) return;
    down = true;
    log.warn({ err: err.message, connection: opts.name }, "redis unreachable");
  });
  // A connection that closes (a primary killed, a failover) is down until ready again.
  redis.on("close", lost);
  redis.on("ready", () => {
    if (down) log.info({ connection: opts.name }, "redis reachable again");
    down = false;
    state.state = "connected";
    delete state.since;
  });
  return redis;
}

/** How `redis` (made by {@link connectRedis}) sees Redis now. */
export function redisHealth(redis: RedisClient): RedisHealth | undefined {
  const h = health.get(redis);
  if (!h) return undefined;
  // A Cluster may still be routing while a slot's primary is gone: its own status says so.
  const connected = h.state === "connected" && redis.status === "ready";
  return connected
    ? { mode: h.mode, state: "connected" }
    : { mode: h.mode, state: "unreachable", since: h.since ?? new Date().toISOString() };
}

// The primary the sentinels name.
function sentinelOptions(config: RedisConfig, common: RedisOptions): RedisOptions {
  return {
    ...common,
    ...credentials(config),
    sentinels: config.sentinels,
    ...(config.name ? { name: config.name } : {}),
    ...(config.sentinelPassword ? { sentinelPassword: config.sentinelPassword } : {}),
    ...(config.tls ? { enableTLSForSentinelMode: true } : {}),
    // No failover detector: it stays subscribed to the sentinels through a reconnect, and a
    // switch it hears while the client is still reconnecting aborts that attempt and ends the
    // client for good. Without it the client asks the sentinels for the primary on each reconnect,
    // which starts when the old primary's connection drops; one that hangs with its connections
    // open is only noticed when commands time out.
    failoverDetector: false,
    sentinelRetryStrategy: (times) => Math.min(times * 100, 1_000),
  };
}

function clusterOptions(config: RedisConfig, common: RedisOptions, offlineQueue: { enableOfflineQueue: boolean }): ClusterOptions {
  return {
    ...offlineQueue,
    redisOptions: { ...common, ...credentials(config) },
    clusterRetryStrategy: (times) => Math.min(times * 100, 1_000),
    // A slot whose primary failed answers CLUSTERDOWN until a replica takes over: retried, briefly.
    retryDelayOnClusterDown: 200,
    retryDelayOnFailover: 200,
  };
}

function credentials(config: RedisConfig): RedisOptions {
  return {
    ...(config.username ? { username: config.username } : {}),
    ...(config.password ? { password: config.password } : {}),
    ...(config.tls ? { tls: {} } : {}),
  };
}

/**
 * Settles once `redis` is connected or has failed its first attempt. Start-up waits on it so a
 * replica is not ready before it can reach a reachable Redis (its fail-fast commands would answer
 * 503 for the first moments), and never waits for an unreachable one (the rest still serves).
 */
export function firstAttempt(redis: RedisClient): Promise<void> {
  if (redis.status === "ready") return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      for (const event of ["ready", "error", "end"]) redis.off(event, done);
      resolve();
    };
    for (const event of ["ready", "error", "end"]) redis.once(event, done);
  });
}
