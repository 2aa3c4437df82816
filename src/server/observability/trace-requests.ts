import {
  context,
  propagation,
  ROOT_CONTEXT,
  SamplingDecision,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Context,
  type Span,
} from "@opentelemetry/api";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { policyOf } from "../http/route-policy.js";
import type { TelemetryHandle } from "./telemetry.js";

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
export function traceRequests(app: FastifyInstance, telemetry: Pick<TelemetryHandle, "tracer" | "sampler" | "ids">): void {
  app.decorateRequest("traceContext", null);
  app.addHook("onRequest", (request, reply, done) => {
    // Routes polled by probes and scrapers declare `traced: false`: a span each would drown the traces that matter.
    if (!policyOf(request).traced) return done();
    const route = request.routeOptions.url;
    const { headers } = request;
    // Extract only what is there: most requests carry neither header.
    const parent =
      headers.traceparent === undefined && headers.baggage === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, headers);
    const span = startServerSpan(telemetry, route ? `${request.method} ${route}` : request.method, parent);
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

/**
 * The server span of a request, its sampling decided first with the provider's own sampler:
 * a request that is not to be recorded gets a non-recording span of our ids and nothing from
 * the SDK (whose startSpan, ids and bookkeeping were most of what an unsampled request cost);
 * one that is goes to the SDK with the trace id the sampler was asked about handed to its id
 * generator, so the SDK's own decision is the same one.
 */
function startServerSpan(telemetry: Pick<TelemetryHandle, "tracer" | "sampler" | "ids">, name: string, parent: Context): Span {
  const { sampler, ids } = telemetry;
  const incoming = trace.getSpanContext(parent);
  const valid = incoming !== undefined && trace.isSpanContextValid(incoming);
  const traceId = valid ? incoming.traceId : ids.generateTraceId();
  const decided = sampler.shouldSample(parent, traceId, name, SpanKind.SERVER, {}, []);
  if (decided.decision === SamplingDecision.NOT_RECORD) {
    const traceState = decided.traceState ?? (valid ? incoming.traceState : undefined);
    return trace.wrapSpanContext({
      traceId,
      spanId: ids.generateSpanId(),
      traceFlags: TraceFlags.NONE,
      ...(traceState ? { traceState } : {}),
    });
  }
  if (!valid) ids.handOff(traceId);
  try {
    return telemetry.tracer.startSpan(name, { kind: SpanKind.SERVER }, parent);
  } finally {
    ids.handOff(undefined);
  }
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
