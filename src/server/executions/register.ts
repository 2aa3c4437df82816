import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import type { CallPipeline } from "../call-pipeline.js";
import { connectRedis } from "../redis.js";
import { executionRoutes } from "../routes/executions.js";
import type { ServiceState } from "../service-state.js";
import { MemoryExecutionStore } from "./memory-store.js";
import { RedisExecutionStore } from "./redis-store.js";
import { pipelineRunner } from "./runner.js";
import { EXECUTION_SCHEMAS } from "./schemas.js";
import type { ExecutionStore } from "./store.js";

/**
 * Adds executions to the service: the store the config asks for (in the process, or Redis
 * when `redis:` is set), its routes, and closing it after the server stopped listening.
 */
export async function registerExecutions(
  app: FastifyInstance, state: ServiceState, pipeline: CallPipeline, scrub: (s: string) => string, redis?: Redis,
): Promise<ExecutionStore> {
  for (const schema of EXECUTION_SCHEMAS) app.addSchema(schema);
  const config = () => state.loaded.config.executions;
  const runner = pipelineRunner(pipeline, app.log, () => config().maxTimeoutMs, scrub);
  const url = state.loaded.config.redis?.url;
  let store: ExecutionStore;
  if (redis && url) {
    // The worker and the subscriber wait out an outage; commands (shared with rate limits) fail fast.
    const worker = connectRedis(url, app.log, { blocking: true, name: "worker" });
    const subscriber = connectRedis(url, app.log, { blocking: true, name: "subscriber" });
    store = new RedisExecutionStore({ commands: redis, worker, subscriber }, config, runner, app.log, state.loaded.config.server.maxConcurrent);
    app.addHook("onClose", async () => {
      await store.close();
      worker.disconnect();
      subscriber.disconnect();
    });
  } else {
    store = new MemoryExecutionStore(config, runner);
    app.addHook("onClose", () => store.close());
  }
  await app.register(executionRoutes, { store, pipeline, state });
  return store;
}
