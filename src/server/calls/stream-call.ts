import type { FastifyReply } from "fastify";
import { negotiate } from "@fastify/accept-negotiator";
import { ToolnexusError } from "../../core/errors.js";
import type { LogMessage, Progress } from "../../core/types.js";
import { normalizeError, toProblem } from "../http/problem.js";
import { scrubDeep } from "../observability/scrub-deep.js";
import { bindAbort, type AbortListen } from "./bind-abort.js";
import type { CallPipeline } from "./call-pipeline.js";
import type { CallOptions } from "./call-context.js";
import type { CallEnvelope } from "./envelope.js";
import type { PromotableCall } from "./promotable-call.js";
import { openSse, type SseStream } from "./sse.js";

const streamClosed = () => new ToolnexusError("CLIENT_CLOSED", "The client closed the event stream");
// The stream's listeners live and die with the stream: nothing to unhook. A call promoted to an
// execution is the execution's: closing the stream no longer ends it.
const onStreamGone =
  (held: PromotableCall | undefined): AbortListen<SseStream> =>
  (sse, abort) => {
    sse.onClientClose(() => {
      if (!held?.isPromoted) abort();
    });
    return undefined;
  };

// Ties go to JSON, the first of these: a client listing both without a preference gets what it got before.
const MEDIA_TYPES = ["application/json", "text/event-stream"];

/** True when the Accept header prefers `text/event-stream` to JSON. */
export function wantsEventStream(accept: string | undefined): boolean {
  return accept !== undefined && negotiate(accept, MEDIA_TYPES) === "text/event-stream";
}

/** What a streamed call needs besides the pipeline. */
export interface StreamSettings {
  /** Read per call: a reload may change `server.heartbeatMs`. */
  heartbeatMs(): number;
  /** Removes secret values from text a source produced (progress messages, error details). */
  scrub(text: string): string;
}

/** The options of a streamed call that the route decides; the stream binds the rest. */
export type StreamCallOptions = Omit<CallOptions, "transport" | "onStart" | "onProgress" | "onLog" | "onEnd">;

/**
 * Runs one call through the pipeline and answers it as `text/event-stream`. The
 * stream opens only once the call passed every check, so lookup, auth, limits and argument
 * failures still reject with their problem+json status. After that: one `progress` event per
 * report and one `log` event per upstream log message, then `result` or `error` (the problem the sync
 * call would have answered) last. Closing the stream aborts the call with CLIENT_CLOSED, exactly like
 * a disconnect. A call that asks its caller mid-call (`held`) is promoted to an execution: `execution`,
 * then `input_required`, and the stream goes on to its result once the answer came in.
 */
export async function streamCall(
  pipeline: CallPipeline,
  reply: FastifyReply,
  name: string,
  body: CallEnvelope,
  o: StreamCallOptions,
  settings: StreamSettings,
  held?: PromotableCall,
): Promise<void> {
  let sse: SseStream | undefined;
  void held?.promoted.then(({ promoted, requests }) => {
    sse?.send("execution", { ...promoted.execution, status: "input_required", inputRequests: requests });
    sse?.send("input_required", { inputRequests: requests });
  });
  try {
    const result = await pipeline.call(name, body, {
      ...o,
      transport: "sse",
      onStart: (call) => {
        held?.bind(call);
        sse = openSse(reply, settings.heartbeatMs());
        bindAbort(call, sse, onStreamGone(held), streamClosed);
      },
      onProgress: (p) => {
        held?.progress(p);
        sse?.send("progress", progressEvent(p, settings.scrub));
      },
      ...(held ? { onInputRequest: held.ask } : {}),
      onLog: (m) => sse?.send("log", logEvent(m, settings.scrub)),
    });
    held?.end({ result });
    sse?.send("result", result);
  } catch (err) {
    held?.end({ error: err });
    if (!sse) throw err; // not started: the error handler answers with the status
    sse.send("error", scrubDeep(toProblem(normalizeError(err), o.requestId), settings.scrub));
  } finally {
    sse?.close();
  }
}

/** Only the contract's fields: a source may hand over more than it should. */
function progressEvent(p: Progress, scrub: (s: string) => string): Progress {
  return {
    progress: p.progress,
    ...(p.total !== undefined ? { total: p.total } : {}),
    ...(p.message !== undefined ? { message: scrub(p.message) } : {}),
  };
}

/** Only the contract's fields, secrets removed from the data. */
function logEvent(m: LogMessage, scrub: (s: string) => string): LogMessage {
  return { level: m.level, ...(m.logger !== undefined ? { logger: scrub(m.logger).slice(0, 256) } : {}), data: scrubDeep(m.data, scrub) };
}
