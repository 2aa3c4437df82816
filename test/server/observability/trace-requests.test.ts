import { context, ROOT_CONTEXT, SamplingDecision, SpanKind, trace, TraceFlags, type Tracer } from "@opentelemetry/api";
import * as sdk from "@opentelemetry/sdk-trace-node";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SpanIds } from "../../../src/server/observability/span-ids.js";
import { samplerFromEnv } from "../../../src/server/observability/telemetry.js";
import { traceRequests } from "../../../src/server/observability/trace-requests.js";
import { traceparent } from "../../helpers/trace-client.js";

const logger = { warn: () => undefined } as never;
// The global context manager and propagators the server's telemetry registers, once for the file.
const global = new sdk.NodeTracerProvider();
beforeAll(() => global.register());
afterAll(async () => {
  await global.shutdown();
  trace.disable();
  context.disable();
});

/** What the handler saw of its active span. */
interface Seen {
  recording: boolean;
  traceId: string;
  flags: number;
}

/**
 * A Fastify app traced as the server traces it, with the sampler `env` names and a real SDK
 * tracer that counts the spans asked of it; exported spans land in `exported`.
 */
function tracedApp(env: Record<string, string>) {
  const ids = new SpanIds();
  const sampler = samplerFromEnv(sdk, env, logger);
  const exporter = new sdk.InMemorySpanExporter();
  const provider = new sdk.NodeTracerProvider({ sampler, idGenerator: ids, spanProcessors: [new sdk.SimpleSpanProcessor(exporter)] });
  const real = provider.getTracer("test");
  const counted = { startSpans: 0 };
  const tracer = {
    startSpan: (...args: Parameters<Tracer["startSpan"]>) => {
      counted.startSpans++;
      return real.startSpan(...args);
    },
  } as Tracer;
  const app = Fastify();
  traceRequests(app, { tracer, sampler, ids });
  app.post("/echo", async (): Promise<Seen> => {
    const span = trace.getSpan(context.active());
    const sc = span?.spanContext();
    return { recording: span?.isRecording() ?? false, traceId: sc?.traceId ?? "", flags: sc?.traceFlags ?? -1 };
  });
  const call = async (headers: Record<string, string> = {}): Promise<Seen> =>
    (await app.inject({ method: "POST", url: "/echo", payload: {}, headers })).json<Seen>();
  return { app, call, counted, exported: () => exporter.getFinishedSpans() };
}

describe("server spans of requests that are not sampled", () => {
  it("make no span with the SDK, yet each request has its own valid trace id with flags 00 in its context", async () => {
    const t = tracedApp({ OTEL_TRACES_SAMPLER: "parentbased_always_off" });
    const seen = [];
    for (let i = 0; i < 20; i++) seen.push(await t.call());
    expect(t.counted.startSpans).toBe(0);
    expect(t.exported()).toEqual([]);
    for (const s of seen) {
      expect(s).toMatchObject({ recording: false, flags: TraceFlags.NONE });
      expect(trace.isSpanContextValid({ traceId: s.traceId, spanId: "0123456789abcdef", traceFlags: 0 })).toBe(true);
    }
    expect(new Set(seen.map((s) => s.traceId)).size).toBe(20);
    await t.app.close();
  });

  it("continue an incoming unsampled traceparent (parent-based) without the SDK", async () => {
    const t = tracedApp({});
    const tp = traceparent("00");
    expect(await t.call({ traceparent: tp.header })).toEqual({ recording: false, traceId: tp.traceId, flags: TraceFlags.NONE });
    expect(t.counted.startSpans).toBe(0);
    await t.app.close();
  });

  it("under a ratio, the requests recorded are the ones the ratio picks by their trace id, and only they reach the SDK", async () => {
    const t = tracedApp({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.5" });
    const ratio = new sdk.TraceIdRatioBasedSampler(0.5);
    const picked = (id: string) => ratio.shouldSample(ROOT_CONTEXT, id).decision === SamplingDecision.RECORD_AND_SAMPLED;
    const seen = [];
    for (let i = 0; i < 100; i++) seen.push(await t.call());
    const recorded = seen.filter((s) => s.recording);
    for (const s of seen) expect(s.recording).toBe(picked(s.traceId));
    expect(recorded.length).toBeGreaterThan(0);
    expect(recorded.length).toBeLessThan(100);
    expect(t.counted.startSpans).toBe(recorded.length);
    const servers = t.exported().filter((s) => s.kind === SpanKind.SERVER);
    expect(servers.map((s) => s.spanContext().traceId).sort()).toEqual(recorded.map((s) => s.traceId).sort());
    await t.app.close();
  });
});

describe("SpanIds", () => {
  it("hands the SDK the trace id it was given once, then fresh ones", () => {
    const ids = new SpanIds();
    ids.handOff("4bf92f3577b34da6a3ce929d0e0e4736");
    expect(ids.generateTraceId()).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    const fresh = ids.generateTraceId();
    expect(fresh).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh).not.toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    expect(ids.generateSpanId()).toMatch(/^[0-9a-f]{16}$/);
  });
});
