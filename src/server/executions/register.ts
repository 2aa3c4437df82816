import type { FastifyInstance } from "fastify";
import type { RedisClient } from "../redis/connect-redis.js";
import type { CallPipeline } from "../calls/call-pipeline.js";
import type { Promotion } from "../calls/promotable-call.js";
import { storePromotion } from "./engine/execution-promotion.js";
import { executionRoutes } from "./routes.js";
import type { ServiceState } from "../service/service-state.js";
import { MemoryExecutionStore } from "./memory/store.js";
import { pipelineRunner } from "./engine/runner.js";
import { EXECUTION_SCHEMAS } from "./schemas.js";
import type { ExecutionStore } from "./engine/store.js";

/**
 * Adds executions to the service: the store the config asks for (in the process, or Redis
 * when `redis:` is set) and its routes. Resolves with the store (MCP tasks are executions too),
 * its close, which waits for the runs of this process to be recorded (call it before the
 * sources and `redis` close), the promotion of synchronous calls that ask their caller
 * mid-call, and `connected`: settled once the store's Redis connections were first tried.
 */
export async function registerExecutions(
  app: FastifyInstance,
  { state, pipeline, scrub, redis }: { state: ServiceState; pipeline: CallPipeline; scrub: (s: string) => string; redis?: RedisClient },
): Promise<{ store: ExecutionStore; close: () => Promise<void>; promotion: Promotion; connected: Promise<void> }> {
  for (const schema of EXECUTION_SCHEMAS) app.addSchema(schema);
  const config = () => state.loaded.config.executions;
  // Keyed by server.stateSecret: a caller's token sealed on one replica opens on every other.
  const sealer = state.sealer;
  const runner = pipelineRunner(pipeline, app.log, () => config().maxTimeoutMs, scrub, sealer, state);
  const shared = state.loaded.config.redis;
  const inputTimeoutMs = () => state.loaded.config.server.inputTimeoutMs;
  let store: ExecutionStore;
  let connected = Promise.resolve();
  const closers: (() => void)[] = [];
  if (redis && shared) {
    if (!sealer.shared)
      app.log.warn(
        "server.stateSecret is not set: an execution of a tool with upstreamAuth (or forwardAuth) runs only on the replica that accepted it; set the same secret on every replica",
      );
    // BullMQ (~170 modules) is imported only for a Redis-backed store.
    const [{ connectRedis, firstAttempt }, { RedisExecutionStore }, { executionKeys }] = await Promise.all([
      import("../redis/connect-redis.js"),
      import("./redis/store.js"),
      import("./redis/records.js"),
    ]);
    // The worker and the subscriber wait out an outage; commands (shared with rate limits) fail fast.
    const worker = connectRedis(shared, app.log, { blocking: true, name: "worker" });
    const subscriber = connectRedis(shared, app.log, { blocking: true, name: "subscriber" });
    const queue = connectRedis(shared, app.log, { name: "queue" });
    store = new RedisExecutionStore(
      { commands: redis, queue, worker, subscriber },
      config,
      runner,
      app.log,
      state.loaded.config.server.maxConcurrent,
      inputTimeoutMs,
      executionKeys(shared.namespace),
    );
    closers.push(() => {
      for (const c of [queue, worker, subscriber]) c.disconnect();
    });
    // A submit needs the queue connection and a reader the subscriber: not ready before them.
    connected = Promise.all([firstAttempt(queue), firstAttempt(subscriber)]).then(() => undefined);
  } else {
    store = new MemoryExecutionStore(config, runner, inputTimeoutMs);
  }
  await app.register(executionRoutes, { store, pipeline, state, sealer });
  const close = async () => {
    await store.close();
    for (const fn of closers) fn();
  };
  return {
    store,
    close,
    connected,
    promotion: storePromotion(store, () => state.loaded.config.server.maxTimeoutMs, scrub),
  };
}
