import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ToolnexusError } from "../../core/errors.js";
import { sendProblem } from "./error-handler.js";
import { toProblem } from "./problem.js";
import { nextRequestId } from "./request-id.js";
import { bindRequestLogger } from "./request-logger.js";

/**
 * Problem+json for what Fastify's router and Node's HTTP parser answer before any route runs:
 * bad percent-encoding, over-long path parameters, parser errors, oversized
 * headers, slow clients, an unsupported `Expect`, a missing `Host`. Every body is built by
 * the one mapping of error-handler.ts; only the transport differs (a reply, a response, a socket).
 */

/** Fastify's `frameworkErrors`: router failures that happen before a route is chosen (and before any hook). */
export function frameworkErrors(scrub: (s: string) => string, logger: FastifyBaseLogger) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    bindRequestLogger(request, reply, logger);
    reply.header("x-request-id", request.id);
    const err =
      error.code === "FST_ERR_BAD_URL"
        ? new ToolnexusError("INVALID_REQUEST", "The URL path is not valid percent-encoding")
        : error.code === "FST_ERR_MAX_PARAM_LENGTH"
          ? new ToolnexusError("URI_TOO_LONG", "A path segment is longer than the router accepts")
          : new ToolnexusError("INTERNAL", "Internal error", { cause: error });
    if (err.code === "INTERNAL") request.log.error({ err: error }, "internal error");
    sendProblem(reply, request, err, scrub);
  };
}

/** What a Node HTTP parser error means for the client. */
function parserError(err: NodeJS.ErrnoException): ToolnexusError {
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") return new ToolnexusError("REQUEST_TIMEOUT", "The request was not received in time");
  if (err.code === "HPE_HEADER_OVERFLOW") return new ToolnexusError("HEADERS_TOO_LARGE", "The request line and headers are too large");
  // RFC 9110 §15.6.2: a method the server does not recognise at all is 501, not 405.
  if (err.code === "HPE_INVALID_METHOD")
    return new ToolnexusError("NOT_IMPLEMENTED", "The request method is not one this server recognises");
  // llhttp's codes (HPE_INVALID_METHOD, HPE_LF_EXPECTED, …) name the fault precisely and hold no request data.
  return new ToolnexusError("INVALID_REQUEST", `Malformed HTTP request${err.code ? ` (${err.code})` : ""}`);
}

/** A complete HTTP/1.1 problem+json response, for a socket no response object exists for yet. */
function rawProblemResponse(err: ToolnexusError, requestId: string = nextRequestId()): string {
  const body = JSON.stringify(toProblem(err, requestId));
  return (
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? ""}\r\n` +
    "Content-Type: application/problem+json\r\n" +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    "Connection: close\r\n\r\n" +
    body
  );
}

/**
 * Fastify's `clientErrorHandler` (Node's `clientError`): answers a request the parser refused,
 * when nothing was written on the socket yet, then closes the connection. A client's mistake
 * is logged at debug, never as an error.
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const problem = parserError(err);
  this.log.debug({ code: err.code, statusCode: problem.status }, "client error");
  const inProgress = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (socket.writable && !inProgress?.headersSent) socket.write(rawProblemResponse(problem));
  socket.destroy();
}

/**
 * Guards Node answers itself unless told otherwise: an `Expect` other than `100-continue`
 * (417), answered here; an HTTP/1.1 request without `Host` (400; `requireHostHeader` must be
 * off so the request reaches Fastify instead of Node's empty 400) is refused by the service's
 * one onRequest hook with {@link hostlessRequestError}.
 */
export function installProtocolGuards(app: FastifyInstance): void {
  app.server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    const err = new ToolnexusError("EXPECTATION_FAILED", 'Only "Expect: 100-continue" is supported');
    const requestId = nextRequestId();
    const body = JSON.stringify(toProblem(err, requestId));
    res.writeHead(err.status, {
      "content-type": "application/problem+json",
      "content-length": Buffer.byteLength(body),
      "x-request-id": requestId,
      connection: "close",
    });
    res.end(body);
    req.resume();
  });
}

/** The 400 of an HTTP/1.1 request without a `Host` header (RFC 9112 §3.2), or undefined. */
export function hostlessRequestError(request: FastifyRequest): ToolnexusError | undefined {
  const raw = request.raw;
  return raw.httpVersion === "1.1" && raw.headers.host === undefined
    ? new ToolnexusError("INVALID_REQUEST", "An HTTP/1.1 request needs a Host header")
    : undefined;
}
