import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
} from "@opentelemetry/api";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { policyOf } from "../http/route-policy.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The request's trace context (its server span), when tracing is on and the path is traced. */
    traceContext: Context | null;
  }
}

/**
 * One server span per request (`<method> <route>`, stable HTTP semantic conventions),
 * continuing an incoming `traceparent`, made with the OpenTelemetry API in two hooks:
 * onRequest starts it (first of all hooks, so a refused request has one too), preHandler runs
 * the handler inside its context (the tool span, egress spans and `traceparent`s descend from
 * it), and the response's "close" ends a recorded one (sent, or the client left first). An
 * unsampled request gets a non-recording span only: no attributes are computed, nothing is
 * listened to or exported, but its context still propagates the decision.
 */
export function traceRequests(app: FastifyInstance, tracer: Tracer): void {
  app.decorateRequest("traceContext", null);
  app.addHook("onRequest", (request, reply, done) => {
    // Routes polled by probes and scrapers declare `traced: false`: a span each would drown the traces that matter.
    if (!policyOf(request).traced) return done();
    const route = request.routeOptions.url;
    const { headers } = request;
    // Extract only what is there: most requests carry neither header.
    const parent =
      headers.traceparent === undefined && headers.baggage === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, headers);
    const span = tracer.startSpan(route ? `${request.method} ${route}` : request.method, { kind: SpanKind.SERVER }, parent);
    if (span.isRecording()) {
      span.setAttributes(requestAttributes(request, route));
      // "close" comes after the response was sent, and also when the client left first.
      reply.raw.once("close", () => endServerSpan(span, reply));
    }
    request.traceContext = trace.setSpan(parent, span);
    done();
  });
  app.addHook("preHandler", (request, _reply, done) => {
    if (request.traceContext) context.with(request.traceContext, done);
    else done();
  });
}

/** Ends a recorded server span with the response's status, or as client_closed when the client left before it was sent. */
function endServerSpan(span: Span, reply: FastifyReply): void {
  if (reply.raw.writableFinished) {
    span.setAttribute("http.response.status_code", reply.statusCode);
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  } else {
    span.setAttribute("error.type", "client_closed");
  }
  span.end();
}

/** The request's attributes, computed for a recorded span only. The query string is left out: it may hold a credential. */
function requestAttributes(request: FastifyRequest, route: string | undefined): Record<string, string | number> {
  const { socket } = request.raw;
  const attributes: Record<string, string | number> = {
    "http.request.method": request.method,
    "url.scheme": request.protocol,
    "url.path": request.url.split("?", 1)[0] ?? "",
    "server.address": request.hostname,
    "network.protocol.version": request.raw.httpVersion,
    "client.address": request.ip,
  };
  if (route) attributes["http.route"] = route;
  if (request.port) attributes["server.port"] = request.port;
  if (socket.remoteAddress) attributes["network.peer.address"] = socket.remoteAddress;
  if (socket.remotePort) attributes["network.peer.port"] = socket.remotePort;
  const agent = request.headers["user-agent"];
  if (agent) attributes["user_agent.original"] = agent;
  return attributes;
}
