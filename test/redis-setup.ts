import type { TestProject } from "vitest/node";
import { startRedis } from "./helpers/redis.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** redis:// URL of the redis-server this run started. */
    redisUrl: string;
  }
}

/** Starts one real redis-server (no persistence) for the run; tests read its URL with inject("redisUrl"). */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = await startRedis();
  project.provide("redisUrl", redis.url);
  return () => redis.stop();
}
