import type { FastifyInstance } from "fastify";
import type { CallPipeline } from "../call-pipeline.js";
import { executionRoutes } from "../routes/executions.js";
import type { ServiceState } from "../service-state.js";
import { MemoryExecutionStore } from "./memory-store.js";
import { pipelineRunner } from "./runner.js";
import { EXECUTION_SCHEMAS } from "./schemas.js";
import type { ExecutionStore } from "./store.js";

/**
 * Adds executions to the service: the store the config asks for (in the process, or Redis
 * when `redis:` is set), its routes, and closing it after the server stopped listening.
 */
export async function registerExecutions(app: FastifyInstance, state: ServiceState, pipeline: CallPipeline, scrub: (s: string) => string): Promise<ExecutionStore> {
  for (const schema of EXECUTION_SCHEMAS) app.addSchema(schema);
  const config = () => state.loaded.config.executions;
  const runner = pipelineRunner(pipeline, app.log, () => config().maxTimeoutMs, scrub);
  const store: ExecutionStore = new MemoryExecutionStore(config, runner);
  await app.register(executionRoutes, { store, pipeline, state });
  app.addHook("onClose", () => store.close());
  return store;
}
