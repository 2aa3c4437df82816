import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ERRORS, ToolnexusError, type ErrorCode, type FieldError } from "../../core/errors.js";
import type { RouteMethods } from "./route-methods.js";
import type { ProblemT } from "./schemas.js";

// Fastify's own error codes that mean "the request was bad", mapped onto ours.
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "INVALID_REQUEST",
  FST_ERR_CTP_EMPTY_JSON_BODY: "INVALID_REQUEST",
  FST_ERR_CTP_INVALID_JSON_BODY: "INVALID_REQUEST",
  FST_ERR_VALIDATION: "INVALID_REQUEST",
};

/** The problem+json body for an error. The only place errors become HTTP. */
export function toProblem(err: ToolnexusError, requestId: string): ProblemT {
  return {
    type: `https://toolnexus.dev/problems/${err.code.toLowerCase().replace(/_/g, "-")}`,
    title: ERRORS[err.code].title,
    status: err.status,
    detail: err.message,
    code: err.code,
    requestId,
    ...(err.errors ? { errors: err.errors } : {}),
  };
}

/** Normalizes anything thrown in a route into a ToolnexusError; unknown errors become INTERNAL. */
export function normalizeError(err: unknown): ToolnexusError {
  if (err instanceof ToolnexusError) return err;
  const fe = err as FastifyError;
  const mapped = fe?.code ? FASTIFY_CODES[fe.code] : undefined;
  if (mapped) {
    const errors = fe.validation?.map((v): FieldError => ({ pointer: v.instancePath, message: v.message ?? "is invalid" }));
    return new ToolnexusError(mapped, fe.message, errors?.length ? { errors } : {});
  }
  if (typeof fe?.statusCode === "number" && fe.statusCode === 400) return new ToolnexusError("INVALID_REQUEST", fe.message);
  return new ToolnexusError("INTERNAL", "Internal error", { cause: err });
}

/**
 * The serialized problem for anything thrown, with secret values a source may have put in a
 * message removed by `scrub`: the body of a problem+json reply and the data of an SSE `error` event.
 */
export function problemBody(err: unknown, requestId: string, scrub: (s: string) => string): string {
  return scrub(JSON.stringify(toProblem(normalizeError(err), requestId)));
}

/** Sends a problem+json reply; `scrub` removes secret values a source may have put in a message. */
export function sendProblem(reply: FastifyReply, request: FastifyRequest, err: ToolnexusError, scrub: (s: string) => string): FastifyReply {
  for (const [k, v] of Object.entries(err.headers ?? {})) reply.header(k, v);
  // Pre-serialized so route response schemas never strip fields of the problem body.
  return reply.code(err.status).type("application/problem+json").send(problemBody(err, request.id, scrub));
}

/** Installs the one error handler and the 404 handler (405 with `Allow` for a known path). */
export function installErrorHandler(app: FastifyInstance, scrub: (s: string) => string, routes: RouteMethods): void {
  app.setErrorHandler((error, request, reply) => {
    const err = normalizeError(error);
    // Tool failures are logged by the execute route; here only what nothing else explains.
    if (err.code === "INTERNAL") request.log.error({ err: error }, "internal error");
    if (reply.raw.destroyed) return; // the client is gone; the call was already logged
    return sendProblem(reply, request, err, scrub);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?", 1)[0] ?? "";
    const allow = routes.allowed(path);
    const err = allow.length > 0
      ? new ToolnexusError("METHOD_NOT_ALLOWED", `${path} does not answer ${request.method}; it answers ${allow.join(", ")}`, { headers: { allow: allow.join(", ") } })
      : new ToolnexusError("NOT_FOUND", `No route ${request.method} ${path}`);
    sendProblem(reply, request, err, scrub);
  });
}
