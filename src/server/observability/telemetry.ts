import { context, propagation, SpanKind, SpanStatusCode, trace, type Sampler, type Span, type Tracer } from "@opentelemetry/api";
import type * as SdkTraceNode from "@opentelemetry/sdk-trace-node";
import type { ToolnexusConfig } from "../../config/schema/index.js";
import type { Logger } from "../../core/types.js";
import { traceEgress } from "../../net/egress-spans.js";
import { SpanIds } from "./span-ids.js";

/** Outcomes of a call that are not a failure of the call (a tool's isError is the model's business). */
const OK_OUTCOMES = new Set(["ok", "tool_error"]);

/** A running tracer provider; {@link TelemetryHandle.shutdown} flushes what is buffered. */
export interface TelemetryHandle {
  /** Where spans go (for the start-up log line). */
  endpoint: string;
  protocol: string;
  /** The tracer of server spans (trace-requests.ts). */
  tracer: Tracer;
  /** The provider's sampler and id generator: trace-requests.ts decides a request's sampling with them first. */
  sampler: Sampler;
  ids: SpanIds;
  shutdown(): Promise<void>;
}

let tracer: Tracer | undefined;
let running: { handle: TelemetryHandle; users: number } | undefined;

/** Where and how to export, from the standard OTEL_* variables first, then `telemetry.otlp`; undefined when off. */
function exportTarget(
  config: ToolnexusConfig,
  env: NodeJS.ProcessEnv = process.env,
): { url?: string; endpoint: string; protocol: string; headers?: Record<string, string> } | undefined {
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
 * nothing otherwise: the SDK and exporters are imported only then, so a service without
 * tracing loads none of it. Spans are made with the OpenTelemetry API at the few places that
 * matter, rather than by instrumentation libraries that patch node:http and wrap every
 * request's emitters: one server span per request (trace-requests.ts), one per tool call
 * ({@link startToolSpan}), one client span per outbound undici request inside a trace
 * (net/egress-spans.ts, which also sends `traceparent`). Sampling follows
 * `OTEL_TRACES_SAMPLER`/`_ARG` (default parent-based, always on). One provider per process:
 * a second server in the same process shares it.
 */
export async function startTelemetry(
  config: ToolnexusConfig,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TelemetryHandle | undefined> {
  const target = exportTarget(config, env);
  if (!target) return undefined;
  if (running) {
    running.users++;
    return shared(running);
  }
  if (target.protocol !== "http/protobuf" && target.protocol !== "http/json") {
    throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL "${target.protocol}" is not supported: use http/protobuf or http/json`);
  }
  const [sdk, resources, exporterModule] = await Promise.all([
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/resources"),
    target.protocol === "http/json"
      ? import("@opentelemetry/exporter-trace-otlp-http")
      : import("@opentelemetry/exporter-trace-otlp-proto"),
  ]);
  const exporter = new exporterModule.OTLPTraceExporter({
    ...(target.url ? { url: target.url } : {}),
    ...(target.headers ? { headers: target.headers } : {}),
  });
  const sampler = samplerFromEnv(sdk, env, logger);
  const ids = new SpanIds();
  const provider = new sdk.NodeTracerProvider({
    resource: resources.resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME ?? config.telemetry?.serviceName ?? "toolnexus" }),
    sampler,
    idGenerator: ids,
    // The exporter comes from a sibling package of the SDK with the same interface.
    spanProcessors: [new sdk.BatchSpanProcessor(exporter as unknown as ConstructorParameters<typeof sdk.BatchSpanProcessor>[0])],
  });
  // The AsyncLocalStorage context manager and the W3C trace-context and baggage propagators.
  provider.register();
  const active = provider.getTracer("toolnexus");
  const stopEgress = traceEgress(active);
  tracer = active;
  logger.info({ endpoint: target.endpoint, protocol: target.protocol }, "tracing on");
  const handle: TelemetryHandle = {
    endpoint: target.endpoint,
    protocol: target.protocol,
    tracer: active,
    sampler,
    ids,
    async shutdown() {
      tracer = undefined;
      running = undefined;
      stopEgress();
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
  running = { handle, users: 1 };
  return shared(running);
}

/**
 * The sampler the `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG` variables name, read
 * from `env` (as the SDK would from process.env): `always_on`, `always_off`, `traceidratio`
 * and their `parentbased_` forms; default `parentbased_always_on`. A bad value falls back to
 * the default (a bad ratio to 1) with a warning, as the SDK does.
 */
export function samplerFromEnv(
  sdk: Pick<typeof SdkTraceNode, "AlwaysOnSampler" | "AlwaysOffSampler" | "TraceIdRatioBasedSampler" | "ParentBasedSampler">,
  env: NodeJS.ProcessEnv,
  logger: Logger,
) {
  const name = (env.OTEL_TRACES_SAMPLER ?? "").trim().toLowerCase() || "parentbased_always_on";
  const ratio = (): number => {
    const raw = env.OTEL_TRACES_SAMPLER_ARG?.trim();
    const n = raw ? Number(raw) : NaN;
    if (n >= 0 && n <= 1) return n;
    logger.warn({ OTEL_TRACES_SAMPLER_ARG: raw ?? null }, "OTEL_TRACES_SAMPLER_ARG is not a ratio in [0, 1]; sampling everything");
    return 1;
  };
  const root = name.replace(/^parentbased_/, "");
  const sampler =
    root === "always_on"
      ? new sdk.AlwaysOnSampler()
      : root === "always_off"
        ? new sdk.AlwaysOffSampler()
        : root === "traceidratio"
          ? new sdk.TraceIdRatioBasedSampler(ratio())
          : undefined;
  if (!sampler) {
    logger.warn({ OTEL_TRACES_SAMPLER: name }, "OTEL_TRACES_SAMPLER is not supported; using parentbased_always_on");
    return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() });
  }
  return name.startsWith("parentbased_") ? new sdk.ParentBasedSampler({ root: sampler }) : sampler;
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

/**
 * The span of one tool call, a child of the active (server) span; undefined, at the cost of
 * one check, when tracing is off or that span is not sampled (every sampler the environment
 * can name decides a child as its local parent was decided, so no span is made to be dropped).
 */
export function startToolSpan(toolName: string, caller: string): Span | undefined {
  if (!tracer) return undefined;
  const parent = trace.getSpan(context.active());
  if (parent && !parent.isRecording()) return undefined;
  return tracer.startSpan(`tool ${toolName}`, {
    kind: SpanKind.INTERNAL,
    attributes: { "tool.name": toolName, "toolnexus.caller": caller },
  });
}

/** Runs `fn` with `span` active, so egress client spans and injected `traceparent`s are its children. */
export function runInSpan<T>(span: Span | undefined, fn: () => T): T {
  return span ? context.with(trace.setSpan(context.active(), span), fn) : fn();
}

/**
 * Ends a tool span with what became of the call; returns the trace id for the call's log
 * line (the request's, when the call was not sampled and has no span of its own).
 */
export function endToolSpan(span: Span | undefined, source: string | undefined, outcome: string, statusCode: number): string | undefined {
  if (!span) return tracer ? trace.getSpan(context.active())?.spanContext().traceId : undefined;
  if (source) span.setAttribute("tool.source", source);
  span.setAttribute("toolnexus.outcome", outcome);
  span.setAttribute("toolnexus.status_code", statusCode);
  if (!OK_OUTCOMES.has(outcome)) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
  span.end();
  return span.spanContext().traceId;
}
