import type { Server } from "node:http";
import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";
import { LogController, type FastifyBaseLogger, type FastifyHttpOptions } from "fastify";
import type { ToolnexusConfig } from "../../config/schema/index.js";
import { lazySerializers, lazyValidators } from "./lazy-compilers.js";
import { clientErrorHandler, frameworkErrors } from "./protocol-errors.js";
import { strictBodyValidator } from "./validator-compiler.js";
import { nextRequestId } from "./request-id.js";

/**
 * The options the service's Fastify instance is built with: limits and timeouts from
 * `server:`, request ids, the schema compilers, and problem+json for what fails before any
 * route runs. `scrub` removes secret values from those problems; `logger` is the service's.
 *
 * No logger is given: Fastify with a logger listens for every response's "finish" and "error"
 * even on a route with no onResponse hook, ~3 k instructions of every tool call
 * (bench/history/2026-12-07-execute-path.md). The service's logger becomes `app.log`
 * (build-server.ts), and each request's is bound by the service's onRequest hook (request-logger.ts).
 */
export function fastifyOptions(
  server: ToolnexusConfig["server"],
  logger: FastifyBaseLogger,
  scrub: (s: string) => string,
): FastifyHttpOptions<Server> {
  return {
    bodyLimit: server.bodyLimitBytes,
    // During shutdown a late request gets our NOT_READY problem, not Fastify's bare 503.
    return503OnClosing: false,
    // One line per call comes from the execute route; Fastify's per-request lines (written through
    // the request's logger once bound) would double it.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => {
      const incoming = req.headers["x-request-id"];
      return typeof incoming === "string" && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : nextRequestId();
    },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: "array", useDefaults: true } },
    // Query strings and params are coerced from strings; bodies are validated as sent.
    // Each route's validators and serializers are compiled on its first request (lazy-compilers.ts).
    schemaController: {
      compilersFactory: { buildValidator: lazyValidators(strictBodyValidator()), buildSerializer: lazySerializers(SerializerSelector()) },
    },
    // Above the longest key a path carries (a tool name is 128 characters, a pin key 2,717, each
    // URL-encoded to at most three times that); longer is 414. No route has a pattern to backtrack.
    routerOptions: { maxParamLength: 8192 },
    // Behind a load balancer, X-Forwarded-Host/Proto name the URL the client used (Operation-Location).
    trustProxy: server.trustProxy,
    frameworkErrors: frameworkErrors(scrub, logger),
    clientErrorHandler,
    // Slow clients are shed within headersTimeoutMs + 1 s: Node sweeps every connectionsCheckingInterval.
    requestTimeout: server.requestTimeoutMs,
    keepAliveTimeout: server.keepAliveTimeoutMs,
    http: {
      headersTimeout: server.headersTimeoutMs,
      requestTimeout: server.requestTimeoutMs,
      connectionsCheckingInterval: 1000,
      requireHostHeader: false,
    },
  };
}
