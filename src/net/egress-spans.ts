import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { context, propagation, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from "@opentelemetry/api";

/** What undici publishes of a request on its diagnostics channels (its own copy and Node's fetch alike). */
interface UndiciRequest {
  origin?: string | URL;
  path: string;
  method: string;
  addHeader?(name: string, value: string): unknown;
}

const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443 };

/**
 * Client spans and W3C trace context for every outbound undici request (HTTP, OpenAPI and A2A
 * tools, remote MCP, webfetch): undici announces each request on `node:diagnostics_channel`,
 * synchronously in the caller's async context, so the active span is the tool span. Only a
 * request made inside a trace is touched: under an unsampled span it just carries that span's
 * `traceparent` (flags 00, so the upstream honours the decision) and no span is made;
 * background traffic (JWKS, reconnects) outside any request gets neither. The URL is recorded
 * without its query string, which may hold a credential. Returns the unsubscribe function.
 */
export function traceEgress(tracer: Tracer): () => void {
  const spans = new WeakMap<object, Span>();
  const inject = (ctx: Context, request: UndiciRequest): void => {
    const carrier: Record<string, string> = {};
    propagation.inject(ctx, carrier);
    for (const k in carrier) request.addHeader?.(k, carrier[k] as string);
  };
  const onCreate = (message: unknown): void => {
    const { request } = message as { request: UndiciRequest };
    const active = context.active();
    const parent = trace.getSpan(active);
    if (!parent) return;
    if (!parent.isRecording()) return inject(active, request);
    let url: URL;
    try {
      url = new URL(request.path, request.origin);
    } catch {
      return inject(active, request);
    }
    const scheme = url.protocol.slice(0, -1);
    const span = tracer.startSpan(
      request.method,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          "http.request.method": request.method,
          "url.full": `${url.origin}${url.pathname}`,
          "url.path": url.pathname,
          "url.scheme": scheme,
          "server.address": url.hostname,
          "server.port": url.port ? Number(url.port) : (DEFAULT_PORTS[scheme] ?? 0),
        },
      },
      active,
    );
    spans.set(request, span);
    inject(trace.setSpan(active, span), request);
  };
  const onHeaders = (message: unknown): void => {
    const { request, response } = message as { request: object; response: { statusCode: number } };
    const span = spans.get(request);
    if (!span) return;
    span.setAttribute("http.response.status_code", response.statusCode);
    if (response.statusCode >= 400) {
      span.setAttribute("error.type", String(response.statusCode));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  };
  const onDone = (message: unknown): void => {
    const { request } = message as { request: object };
    spans.get(request)?.end();
    spans.delete(request);
  };
  const onError = (message: unknown): void => {
    const { request, error } = message as { request: object; error: Error & { code?: string } };
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    // A caller's abort is not a failure of the upstream.
    if (error.name !== "AbortError") {
      span.setAttribute("error.type", error.code ?? error.name);
      span.recordException(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    }
    span.end();
  };
  const channels: [string, (m: unknown) => void][] = [
    ["undici:request:create", onCreate],
    ["undici:request:headers", onHeaders],
    ["undici:request:trailers", onDone],
    ["undici:request:error", onError],
  ];
  for (const [name, fn] of channels) subscribe(name, fn);
  return () => {
    for (const [name, fn] of channels) unsubscribe(name, fn);
  };
}
