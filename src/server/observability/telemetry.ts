import { createRequire } from "node:module";
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from "@opentelemetry/api";
import type { ToolnexusConfig } from "../../config/schema/index.js";
import type { Logger } from "../../core/types.js";

/**
 * Paths of the routes declared `traced: false` (probes and scrapers: a span each would drown
 * the traces that matter), filled by {@link skipTracing} as routes register. The http
 * instrumentation sees requests before any routing, so it matches the path as the router does.
 */
const untracedPaths = new Set<string>();
/** Outcomes of a call that are not a failure of the call (a tool's isError is the model's business). */
const OK_OUTCOMES = new Set(["ok", "tool_error"]);

/** A running tracer provider; {@link TelemetryHandle.shutdown} flushes what is buffered. */
export interface TelemetryHandle {
  /** Where spans go (for the start-up log line). */
  endpoint: string;
  protocol: string;
  shutdown(): Promise<void>;
}

/** What the instrumentations need of each other: enable/disable and a provider to record to. */
interface Instrumentation {
  setTracerProvider(provider: unknown): void;
  enable(): void;
  disable(): void;
}

let tracer: Tracer | undefined;
let running: { handle: TelemetryHandle; users: number } | undefined;
// Created once per process: the require hook that patches node:http fires once per module,
// so a later provider re-enables these rather than building new ones that would never patch.
let instrumentations: Instrumentation[] | undefined;

/** Where and how to export, from the standard OTEL_* variables first, then `telemetry.otlp`; undefined when off. */
function exportTarget(config: ToolnexusConfig, env: NodeJS.ProcessEnv = process.env): { url?: string; endpoint: string; protocol: string; headers?: Record<string, string> } | undefined {
  if (env.OTEL_SDK_DISABLED === "true") return undefined;
  const fromEnv = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const otlp = config.telemetry?.otlp;
  const endpoint = fromEnv ?? otlp?.endpoint;
  if (!endpoint) return undefined;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? otlp?.protocol ?? "http/protobuf";
  // With an OTEL_* endpoint the exporter reads the variables itself (path rules, headers).
  if (fromEnv) return { endpoint, protocol };
  return { url: `${endpoint.replace(/\/+$/, "")}/v1/traces`, endpoint, protocol, ...(otlp?.headers ? { headers: otlp.headers } : {}) };
}

/**
 * Starts OpenTelemetry tracing when an OTLP endpoint is configured, and does
 * nothing otherwise: the SDK, exporters and instrumentations are imported only then, so a
 * service without tracing loads none of it. Spans: one server span per request (the http
 * instrumentation, which continues an incoming `traceparent`), one per tool call (the
 * pipeline, via {@link startToolSpan}), one client span per outbound undici request (the
 * undici instrumentation, which also sends `traceparent`). One provider per process: a
 * second server in the same process shares it.
 */
export async function startTelemetry(config: ToolnexusConfig, logger: Logger, env: NodeJS.ProcessEnv = process.env): Promise<TelemetryHandle | undefined> {
  const target = exportTarget(config, env);
  if (!target) return undefined;
  if (running) {
    running.users++;
    return shared(running);
  }
  if (target.protocol !== "http/protobuf" && target.protocol !== "http/json") {
    throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL "${target.protocol}" is not supported: use http/protobuf or http/json`);
  }
  const [sdk, resources, http, undici, exporterModule] = await Promise.all([
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/instrumentation-http"),
    import("@opentelemetry/instrumentation-undici"),
    target.protocol === "http/json" ? import("@opentelemetry/exporter-trace-otlp-http") : import("@opentelemetry/exporter-trace-otlp-proto"),
  ]);
  const exporter = new exporterModule.OTLPTraceExporter({ ...(target.url ? { url: target.url } : {}), ...(target.headers ? { headers: target.headers } : {}) });
  const provider = new sdk.NodeTracerProvider({
    resource: resources.resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME ?? config.telemetry?.serviceName ?? "toolnexus" }),
    // The exporter comes from a sibling package of the SDK with the same interface.
    spanProcessors: [new sdk.BatchSpanProcessor(exporter as unknown as ConstructorParameters<typeof sdk.BatchSpanProcessor>[0])],
  });
  provider.register();
  if (!instrumentations) {
    instrumentations = [
      new http.HttpInstrumentation({ ignoreIncomingRequestHook: (req) => untracedPaths.has((req.url ?? "").split(/[?#]/, 1)[0] ?? "") }),
      new undici.UndiciInstrumentation(),
    ];
    // The http instrumentation patches node:http when it is next required; ESM imports (ours,
    // Fastify's) never go through require, so require it once here. The patch is on
    // http.Server.prototype, so servers created before this are covered too.
    createRequire(import.meta.url)("node:http");
  }
  const active = instrumentations;
  for (const i of active) {
    i.setTracerProvider(provider);
    i.enable();
  }
  tracer = provider.getTracer("toolnexus");
  logger.info({ endpoint: target.endpoint, protocol: target.protocol }, "tracing on");
  const handle: TelemetryHandle = {
    endpoint: target.endpoint,
    protocol: target.protocol,
    async shutdown() {
      tracer = undefined;
      running = undefined;
      for (const i of active) i.disable();
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
  running = { handle, users: 1 };
  return shared(running);
}

/** A handle on the one provider whose shutdown stops it only for its last user. */
function shared(r: { handle: TelemetryHandle; users: number }): TelemetryHandle {
  let done = false;
  return {
    ...r.handle,
    async shutdown() {
      if (done) return;
      done = true;
      if (--r.users === 0) await r.handle.shutdown();
    },
  };
}

/** Makes no server span for requests to `path` (a static route path, declared `traced: false`). */
export function skipTracing(path: string): void {
  untracedPaths.add(path);
}

/** The span of one tool call, or undefined (at no cost) when tracing is off. */
export function startToolSpan(toolName: string, caller: string): Span | undefined {
  if (!tracer) return undefined;
  return tracer.startSpan(`tool ${toolName}`, { kind: SpanKind.INTERNAL, attributes: { "tool.name": toolName, "toolnexus.caller": caller } });
}

/** Runs `fn` with `span` active, so egress client spans and injected `traceparent`s are its children. */
export function runInSpan<T>(span: Span | undefined, fn: () => T): T {
  return span ? context.with(trace.setSpan(context.active(), span), fn) : fn();
}

/** Ends a tool span with what became of the call; returns its trace id for the call's log line. */
export function endToolSpan(span: Span | undefined, source: string | undefined, outcome: string, statusCode: number): string | undefined {
  if (!span) return undefined;
  if (source) span.setAttribute("tool.source", source);
  span.setAttribute("toolnexus.outcome", outcome);
  span.setAttribute("toolnexus.status_code", statusCode);
  if (!OK_OUTCOMES.has(outcome)) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
  span.end();
  return span.spanContext().traceId;
}
