import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Cluster, Redis } from "ioredis";
import { ToolnexusError } from "../../core/errors.js";
import { policyOf } from "../http/route-policy.js";
import type { ServiceState } from "../service/service-state.js";

// Probe routes never count against a budget nor shed: probes must see the truth.
const isProbe = (req: FastifyRequest) => policyOf(req).access === "probe";

/**
 * Per-key request budgets (@fastify/rate-limit) and load shedding (@fastify/under-pressure),
 * each imported and registered only when configured so an unconfigured server pays nothing
 * for them, not even their start-up.
 * Budgets are read per request, so a reload that changes a key's `rateLimit` applies at once.
 * With `redis`, counters are shared by every replica; while Redis is unreachable requests pass.
 */
export async function registerLimits(
  app: FastifyInstance,
  { state, redis }: { state: ServiceState; redis?: Redis | Cluster },
): Promise<void> {
  const { server, auth } = state.loaded.config;
  if (server.rateLimit || auth?.apiKeys.some((k) => k.rateLimit)) {
    const budget = (req: FastifyRequest) => {
      // A key's own budget is for that key only, not for a JWT subject that happens to share its id.
      const own =
        req.caller?.kind === "apiKey" ? state.loaded.config.auth?.apiKeys.find((k) => k.id === req.caller.id)?.rateLimit : undefined;
      return own ?? state.loaded.config.server.rateLimit;
    };
    const { default: rateLimit } = await import("@fastify/rate-limit");
    await app.register(rateLimit, {
      global: true,
      ...(redis ? { redis, nameSpace: `${state.loaded.config.redis?.namespace ?? "toolnexus"}:ratelimit:`, skipOnError: true } : {}),
      hook: "preHandler", // after the auth hook, so the budget is the caller's
      keyGenerator: (req) =>
        req.caller && req.caller.id !== "anonymous" ? `${req.caller.kind === "jwt" ? "sub" : "key"}:${req.caller.id}` : `ip:${req.ip}`,
      allowList: (req) => isProbe(req) || budget(req) === undefined,
      max: (req) => budget(req)?.max ?? Number.MAX_SAFE_INTEGER,
      timeWindow: (req) => budget(req)?.timeWindowMs ?? 60_000,
      errorResponseBuilder: (_req, ctx) =>
        new ToolnexusError("RATE_LIMITED", `Rate limit of ${ctx.max} requests exceeded; retry in ${ctx.after}`),
    });
  }
  const p = server.pressure;
  if (p && (p.maxEventLoopDelayMs || p.maxHeapUsedBytes || p.maxRssBytes)) {
    const { default: underPressure } = await import("@fastify/under-pressure");
    await app.register(underPressure, {
      ...(p.maxEventLoopDelayMs ? { maxEventLoopDelay: p.maxEventLoopDelayMs } : {}),
      ...(p.maxHeapUsedBytes ? { maxHeapUsedBytes: p.maxHeapUsedBytes } : {}),
      ...(p.maxRssBytes ? { maxRssBytes: p.maxRssBytes } : {}),
      pressureHandler: (req, _reply, type) => {
        if (isProbe(req)) return undefined;
        throw new ToolnexusError("UNDER_PRESSURE", `The server is under pressure (${type}); retry shortly`, {
          headers: { "retry-after": "5" },
        });
      },
    });
  }
}
