import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ToolnexusError } from "../../core/errors.js";
import { normalizeError, problemBody } from "./problem.js";
import type { RouteMethods } from "./route-methods.js";
import { bindRequestLogger, RequestLogger } from "./request-logger.js";

/** Sends a problem+json reply; `scrub` removes secret values a source may have put in a message. */
export function sendProblem(reply: FastifyReply, request: FastifyRequest, err: ToolnexusError, scrub: (s: string) => string): FastifyReply {
  for (const [k, v] of Object.entries(err.headers ?? {})) reply.header(k, v);
  // Pre-serialized so route response schemas never strip fields of the problem body.
  return reply
    .code(err.status)
    .type("application/problem+json")
    .send(problemBody(err, request.id, scrub));
}

/** The line of a refused request (a status of 400 or more): which request, and how it was answered. */
export function logRejected(request: FastifyRequest, statusCode: number): void {
  const { method, url } = request;
  request.log.info({ method, url, statusCode }, "request rejected");
}

/** Installs the one error handler and the 404 handler (405 with `Allow` for a known path). */
export function installErrorHandler(app: FastifyInstance, scrub: (s: string) => string, routes: RouteMethods): void {
  app.setErrorHandler((error, request, reply) => {
    // A hook that runs before the service's own (tracing's) may fail before the request's logger is bound.
    if (!(request.log instanceof RequestLogger)) bindRequestLogger(request, reply, app.log);
    const err = normalizeError(error);
    // Tool failures are logged by the execute route; here only what nothing else explains.
    if (err.code === "INTERNAL") request.log.error({ err: error }, "internal error");
    if (reply.raw.destroyed) return; // the client is gone; the call was already logged
    return sendProblem(reply, request, err, scrub);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?", 1)[0] ?? "";
    const allow = routes.allowed(path);
    const err =
      allow.length > 0
        ? new ToolnexusError("METHOD_NOT_ALLOWED", `${path} does not answer ${request.method}; it answers ${allow.join(", ")}`, {
            headers: { allow: allow.join(", ") },
          })
        : new ToolnexusError("NOT_FOUND", `No route ${request.method} ${path}`);
    // The routes' onResponse hook logs their refusals (request-hooks.ts); this is no route.
    logRejected(request, err.status);
    sendProblem(reply, request, err, scrub);
  });
}
