import type { Static } from "@sinclair/typebox";
import { Type } from "../http/typebox-lite.js";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { PinStatus } from "../http/schemas/pins.js";
import { ProblemResponse as problem } from "../http/schemas/common.js";
import { Health, Status, type RedisHealth } from "../http/schemas/service.js";
import type { ServiceState } from "./service-state.js";
import { scrubDeep } from "../observability/scrub-deep.js";

/** Options of {@link metaRoutes}. */
interface MetaRoutesOptions {
  state: ServiceState;
  scrub: (s: string) => string;
  /** Tool-definition pinning: the pinning part of `/status` while `pinning.mode` is not off. */
  pins?: { status(): Static<typeof PinStatus> };
  /** How this replica sees the shared Redis, with `redis:` (`/readyz` says it). */
  redisHealth?: () => Static<typeof RedisHealth> | undefined;
}

// The probes answer a fixed small body: plain JSON.stringify instead of a serializer compiled
// on the first request, which would put ~20 ms of compiling on the first /readyz after start.
const plainJson = () => (data: unknown) => JSON.stringify(data);

/** `/healthz`, `/readyz` (probes) and `/status` (operators). */
export const metaRoutes: FastifyPluginAsyncTypebox<MetaRoutesOptions> = async (app, { state, scrub, pins, redisHealth }) => {
  app.get(
    "/healthz",
    {
      config: { access: "probe", traced: false },
      serializerCompiler: plainJson,
      schema: {
        operationId: "health",
        summary: "Liveness: 200 while the process lives",
        tags: ["service"],
        security: [],
        response: { 200: Type.Ref(Health) },
      },
    },
    async () => ({ status: "ok" }),
  );

  app.get(
    "/readyz",
    {
      config: { access: "probe", traced: false },
      serializerCompiler: plainJson,
      schema: {
        operationId: "ready",
        summary: "Readiness: 200 once sources are loaded, 503 while loading or draining",
        description:
          "With `redis:`, also how this replica sees Redis: `unreachable` during an outage or a failover, while synchronous calls still work and execution routes answer 503 STORE_UNAVAILABLE. Readiness stays about this replica's sources: every replica sees the same Redis, so taking them all out would stop synchronous calls too.",
        tags: ["service"],
        security: [],
        response: { 200: Type.Ref(Health), 503: problem },
      },
    },
    async () => {
      state.toolkit();
      const shared = redisHealth?.();
      return shared ? { status: "ready", redis: shared } : { status: "ready" };
    },
  );

  app.get(
    "/status",
    {
      // The operator console reads it with its session cookie.
      config: { access: "operator", traced: true, session: true },
      schema: {
        operationId: "status",
        summary: "Per-source status, without secrets",
        tags: ["service"],
        response: { 200: Type.Ref(Status), "4xx": problem },
      },
    },
    async () => {
      const tk = state.peek();
      const body = {
        ready: state.phase === "ready",
        state: state.phase,
        tools: tk?.tools().length ?? 0,
        sources: tk?.status() ?? [],
        ...(state.loadError ? { error: state.loadError } : {}),
        ...(state.lastReload ? { reload: state.lastReload } : {}),
        ...(pins && state.loaded.config.pinning.mode !== "off" ? { pins: pins.status() } : {}),
      };
      // Source names and errors come from many libraries: scrub known secrets on the way out.
      return scrubDeep(body, scrub);
    },
  );
};
