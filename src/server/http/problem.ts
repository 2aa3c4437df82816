import type { FastifyError } from "fastify";
import { ERRORS, ToolnexusError, type ErrorCode, type FieldError } from "../../core/errors.js";

/**
 * The one mapping of an error to its RFC 9457 problem: pure, no reply involved, so every
 * transport uses it (the error handler, the raw-socket answers, an SSE `error` event, an
 * execution's recorded error, /mcp's JSON-RPC errors).
 */

/** The problem+json body of an error (the wire schema is `Problem` in schemas.ts). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  requestId: string;
  errors?: FieldError[];
}

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
export function toProblem(err: ToolnexusError, requestId: string): Problem {
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
