import type { FastifyInstance } from "fastify";
import type { Logger } from "../../core/types.js";
import { FilePinStore } from "../../governance/pin-file-store.js";
import { RedisPinStore } from "../../governance/pin-redis-store.js";
import { MemoryPinStore, type PinStore } from "../../governance/pin-store.js";
import type { Metrics } from "../observability/metrics.js";
import type { ServiceState } from "../service/service-state.js";
import { PinGuard } from "./pin-guard.js";

/**
 * Turns tool-definition pinning on for a server: the pin store (Redis when `redis:` is
 * configured, so replicas agree; else `pinning.file`; else the process), the guard that
 * reviews every toolkit put in service (its routes: pin-routes.ts). Rejects when the store is
 * unusable in `block` mode: the service must not serve unreviewed tools.
 */
export async function startPinning(app: FastifyInstance, state: ServiceState, metrics: Metrics, log: Logger): Promise<PinGuard> {
  const guard = new PinGuard(state, await pinStore(state, log), log, metrics.registry);
  await guard.init();
  state.hold = guard;
  state.onToolkit((tk) => guard.follow(tk));
  app.addHook("onClose", () => guard.close());
  return guard;
}

async function pinStore(state: ServiceState, log: Logger): Promise<PinStore> {
  const { redis, pinning } = state.loaded.config;
  if (pinning.mode === "off") return new MemoryPinStore();
  if (redis) {
    // ioredis loads only with `redis:` (see build-server.ts).
    const { connectRedis } = await import("../redis/connect-redis.js");
    const asFastify = log as Parameters<typeof connectRedis>[1];
    return new RedisPinStore(
      connectRedis(redis, asFastify, { name: "pins" }),
      pinning.key,
      connectRedis(redis, asFastify, { blocking: true, name: "pins-events" }),
    );
  }
  return pinning.file ? new FilePinStore(pinning.file) : new MemoryPinStore();
}
