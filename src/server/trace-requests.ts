import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Tracer } from "@opentelemetry/api";
import type { FastifyInstance, FastifyRequest } from "fastify";

/** Routes polled by probes and scrapers: a span each would drown the traces that matter. */
const UNTRACED_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

declare module "fastify" {
  interface FastifyRequest {
    /** The request's trace context (its server span), when tracing is on and the path is traced. */
    traceContext: Context | null;
  }
}

/**
 * One server span per request (`<method> <route>`, stable HTTP semantic conventions),
 * continuing an incoming `traceparent`, made with the OpenTelemetry API in three hooks:
 * onRequest starts it (first of all hooks, so a refused request has one too), preHandler runs
 * the handler inside its context (the tool span, egress spans and `traceparent`s descend from
 * it), onResponse ends it. An unsampled request gets a non-recording span only: no attributes
 * are computed and nothing is exported, but its context still propagates the decision.
 */
export function traceRequests(app: FastifyInstance, tracer: Tracer): void {
  app.decorateRequest("traceContext", null);
  app.addHook("onRequest", (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (UNTRACED_PATHS.has(route ?? request.url.split("?", 1)[0] ?? "")) return done();
    const { headers } = request;
    // Extract only what is there: most requests carry neither header.
    const parent = headers.traceparent === undefined && headers.baggage === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, headers);
    const span = tracer.startSpan(route ? `${request.method} ${route}` : request.method, { kind: SpanKind.SERVER }, parent);
    if (span.isRecording()) span.setAttributes(requestAttributes(request, route));
    request.traceContext = trace.setSpan(parent, span);
    done();
  });
  app.addHook("preHandler", (request, _reply, done) => {
    if (request.traceContext) context.with(request.traceContext, done);
    else done();
  });
  app.addHook("onResponse", (request, reply, done) => {
    const span = request.traceContext && trace.getSpan(request.traceContext);
    if (span?.isRecording()) {
      span.setAttribute("http.response.status_code", reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span?.end();
    done();
  });
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
