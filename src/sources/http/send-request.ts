import { request, type Dispatcher } from "undici";
import { ToolnexusError, upstreamUnavailable } from "../../core/errors.js";
import { networkErrorReason } from "../../net/network-error.js";

/** Default cap on a response body: 10 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** Default upstream timeout of an HTTP tool. */
export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;

/** One outbound request, fully built. */
export interface OutboundRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
}

/** How to send it. */
export interface SendOptions {
  dispatcher: Dispatcher;
  /** Upstream timeout in ms; when it fires the call fails with TOOL_TIMEOUT (504). */
  timeout: number;
  maxResponseBytes: number;
  /** The caller's signal (disconnect, REST timeout, shutdown). */
  signal?: AbortSignal;
  /** Who is asking, for error messages (a tool name). */
  label: string;
}

/** What came back. `tooLarge` means the body passed `maxResponseBytes` and was not read further. */
export interface InboundResponse {
  status: number;
  contentType: string;
  text: string;
  tooLarge: boolean;
}

/**
 * Sends one request through the (guarded) dispatcher and reads the body up to the cap.
 * Throws UPSTREAM_UNAVAILABLE when the origin cannot be reached (DNS, refused, TLS, egress
 * refusal), TOOL_TIMEOUT when `timeout` fires, and the caller's abort reason when its signal
 * fires. Messages carry the origin only: paths and queries may hold secrets.
 */
export async function sendRequest(req: OutboundRequest, opts: SendOptions): Promise<InboundResponse> {
  const timer = AbortSignal.timeout(opts.timeout);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timer]) : timer;
  try {
    const res = await request(req.url, {
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      body: req.body ?? null,
      dispatcher: opts.dispatcher,
      signal,
    });
    const contentType = String(res.headers["content-type"] ?? "");
    const declared = Number(res.headers["content-length"] ?? NaN);
    if (declared > opts.maxResponseBytes) {
      discard(res.body);
      return { status: res.statusCode, contentType, text: "", tooLarge: true };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > opts.maxResponseBytes) {
        discard(res.body);
        return { status: res.statusCode, contentType, text: "", tooLarge: true };
      }
      chunks.push(chunk);
    }
    return { status: res.statusCode, contentType, text: decode(Buffer.concat(chunks), contentType), tooLarge: false };
  } catch (err) {
    if (opts.signal?.aborted) throw opts.signal.reason ?? err;
    if (timer.aborted) {
      throw new ToolnexusError("TOOL_TIMEOUT", `${opts.label}: ${req.url.origin} did not answer within ${opts.timeout} ms`, { cause: err });
    }
    const reason = networkErrorReason(err);
    if (reason) throw upstreamUnavailable(`${opts.label}: cannot reach ${req.url.origin}: ${reason}`, err);
    throw err;
  }
}

/** Stops reading a body; undici reports the destroy as an "error" event nobody else listens to. */
function discard(body: Dispatcher.ResponseData["body"]): void {
  body.on("error", () => {});
  body.destroy();
}

/** Decodes a body in the charset its content type names (utf-8 when it names none or an unknown one). */
export function decode(body: Buffer, contentType: string): string {
  const charset = /charset="?([\w.:-]+)"?/i.exec(contentType)?.[1];
  if (charset) {
    try {
      return new TextDecoder(charset).decode(body);
    } catch {
      // An unknown charset label: fall through to utf-8 rather than fail the call.
    }
  }
  return body.toString("utf8");
}

/** The model-facing message for a body over the cap. */
export function tooLargeMessage(status: number, max: number): string {
  return `HTTP ${status}: response body exceeds the ${max}-byte limit (maxResponseBytes); not returned`;
}
