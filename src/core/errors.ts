/**
 * The one error table. Every failure the service reports has a stable code here, with the
 * HTTP status and title it maps to (like fastify's FST_ERR_* or undici's UND_ERR_*).
 * The mapping to problem+json happens in exactly one place: src/server/error-handler.ts.
 */
export const ERRORS = {
  INVALID_REQUEST: { status: 400, title: "Invalid request" },
  INVALID_STATE: { status: 400, title: "Invalid state" },
  UNAUTHORIZED: { status: 401, title: "Unauthorized" },
  FORBIDDEN: { status: 403, title: "Forbidden" },
  FORBIDDEN_HOST: { status: 403, title: "Forbidden host" },
  INSUFFICIENT_SCOPE: { status: 403, title: "Insufficient scope" },
  NOT_FOUND: { status: 404, title: "Not found" },
  TOOL_NOT_FOUND: { status: 404, title: "Tool not found" },
  EXECUTION_NOT_FOUND: { status: 404, title: "Execution not found" },
  RESOURCE_NOT_FOUND: { status: 404, title: "Resource not found" },
  METHOD_NOT_ALLOWED: { status: 405, title: "Method not allowed" },
  REQUEST_TIMEOUT: { status: 408, title: "Request timeout" },
  IDEMPOTENCY_KEY_REUSED: { status: 409, title: "Idempotency key reused" },
  TOOL_DEFINITION_CHANGED: { status: 409, title: "Tool definition changed" },
  EXECUTION_NOT_WAITING: { status: 409, title: "Execution not waiting for input" },
  INPUT_TIMEOUT: { status: 410, title: "Input timeout" },
  PAYLOAD_TOO_LARGE: { status: 413, title: "Payload too large" },
  URI_TOO_LONG: { status: 414, title: "URI too long" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: "Unsupported media type" },
  EXPECTATION_FAILED: { status: 417, title: "Expectation failed" },
  INVALID_ARGUMENTS: { status: 422, title: "Invalid arguments" },
  INVALID_INPUT_RESPONSES: { status: 422, title: "Invalid input responses" },
  OVERLOADED: { status: 429, title: "Overloaded" },
  RATE_LIMITED: { status: 429, title: "Rate limited" },
  HEADERS_TOO_LARGE: { status: 431, title: "Request header fields too large" },
  CLIENT_CLOSED: { status: 499, title: "Client closed request" },
  CANCELLED: { status: 499, title: "Cancelled" },
  TOOL_FAILED: { status: 500, title: "Tool failed" },
  INTERNAL: { status: 500, title: "Internal error" },
  NOT_IMPLEMENTED: { status: 501, title: "Not implemented" },
  UPSTREAM_UNAVAILABLE: { status: 502, title: "Upstream unavailable" },
  EXECUTION_LOST: { status: 502, title: "Execution lost" },
  UPSTREAM_AUTH_FAILED: { status: 502, title: "Upstream authentication failed" },
  NOT_READY: { status: 503, title: "Not ready" },
  UNDER_PRESSURE: { status: 503, title: "Under pressure" },
  STORE_UNAVAILABLE: { status: 503, title: "Store unavailable" },
  AUTH_UNAVAILABLE: { status: 503, title: "Authentication unavailable" },
  TOOL_TIMEOUT: { status: 504, title: "Tool timeout" },
} as const satisfies Record<string, { status: number; title: string }>;

/** A stable error code of the REST contract. */
export type ErrorCode = keyof typeof ERRORS;

/** One validation problem, located by a JSON pointer. */
export interface FieldError {
  pointer: string;
  message: string;
}

/** An error with a stable code. `detail` is safe to show to callers: never put secrets in it. */
export class ToolnexusError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, detail: string, opts: { errors?: FieldError[]; headers?: Record<string, string>; cause?: unknown } = {}) {
    super(detail, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "ToolnexusError";
    this.code = code;
    this.status = ERRORS[code].status;
    if (opts.errors) this.errors = opts.errors;
    if (opts.headers) this.headers = opts.headers;
  }
}

/** True for a {@link ToolnexusError} with the given code (or any code when omitted). */
export function isToolnexusError(err: unknown, code?: ErrorCode): err is ToolnexusError {
  return err instanceof ToolnexusError && (code === undefined || err.code === code);
}

/**
 * A source throws this when the thing behind a tool (MCP server, HTTP upstream, agent)
 * cannot be reached: the REST layer answers 502 instead of 500.
 */
export function upstreamUnavailable(detail: string, cause?: unknown): ToolnexusError {
  return new ToolnexusError("UPSTREAM_UNAVAILABLE", detail, { cause });
}
