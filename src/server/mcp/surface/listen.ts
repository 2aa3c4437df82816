import type { Caller } from "../../auth/index.js";
import { JsonRpcError } from "../results.js";
import { surfaceCapabilities } from "./register.js";
import type { ResourceSubscriptions } from "./subscriptions.js";
import type { SurfaceMethods } from "./surface-methods.js";

/**
 * A 2026 `subscriptions/listen` on `/mcp` that names resources: the SDK's listen router serves
 * the stream (acknowledgement, filtering, keep-alive, teardown) and hears the change events, but
 * knows nothing of callers nor of upstreams. Before it, each URI is checked as a read is (one
 * answer for unknown and not the caller's; too many refused); while the stream is open the URIs
 * are held, so the upstream subscriptions stand; when it ends, by either side, they are released.
 */
export async function listenWithResources(
  methods: SurfaceMethods,
  hub: ResourceSubscriptions,
  exchange: { request: Request; body: Record<string, unknown>; session: { caller: Caller } },
  serve: () => Promise<Response>,
): Promise<Response> {
  const { body, request } = exchange;
  const params = body.params as { notifications?: { resourceSubscriptions?: unknown } } | undefined;
  const uris = params?.notifications?.resourceSubscriptions;
  // A malformed filter is the SDK's to refuse; a gateway that offers no subscriptions honors none.
  if (!Array.isArray(uris) || uris.length === 0 || uris.some((u) => typeof u !== "string")) return serve();
  if (!(surfaceCapabilities(methods.surface()).resources as { subscribe?: boolean } | undefined)?.subscribe) return serve();
  let release: () => void;
  try {
    release = hub.acquire(methods.subscribeRoutes(exchange.session.caller, uris as string[]));
  } catch (err) {
    if (!(err instanceof JsonRpcError)) throw err;
    const error = { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) };
    return Response.json({ jsonrpc: "2.0", id: body.id ?? null, error }, { status: 200 });
  }
  let response: Response;
  try {
    response = await serve();
  } catch (err) {
    release();
    throw err;
  }
  if (!response.body || !(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    release();
    return response;
  }
  request.signal.addEventListener("abort", release, { once: true });
  return new Response(releasing(response.body, release), { status: response.status, headers: response.headers });
}

// The stream, passed through; `release` runs once it ends or its reader goes away.
function releasing(body: ReadableStream<Uint8Array>, release: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          release();
          controller.close();
        } else controller.enqueue(value);
      } catch (err) {
        release();
        controller.error(err);
      }
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  });
}
