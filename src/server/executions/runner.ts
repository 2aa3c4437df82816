import { ToolnexusError } from "../../core/errors.js";
import type { InputRequests } from "../../core/input-requests.js";
import type { FastifyBaseLogger } from "fastify";
import type { Caller } from "../auth/index.js";
import { bindAbort, onSignalAbort } from "../calls/bind-abort.js";
import type { CallPipeline } from "../calls/call-pipeline.js";
import { normalizeError, toProblem } from "../http/problem.js";
import type { Outcome, Runner } from "./store.js";

const cancelled = () => new ToolnexusError("CANCELLED", "The execution was cancelled");

/**
 * The runner every store uses: one execution is one call through the pipeline (limits,
 * validation, timeout capped at `executions.maxTimeoutMs`, metrics, log line, scrubbing),
 * its cancel bound to the call signal. The caller's allowlist was checked at submit; the
 * owner id is all a replica that runs the job knows of it.
 */
export function pipelineRunner(
  pipeline: CallPipeline,
  log: FastifyBaseLogger,
  maxTimeoutMs: () => number,
  scrub: (s: string) => string,
): Runner {
  return async (job, hooks): Promise<Outcome> => {
    try {
      const result = await pipeline.call(job.tool, job.body, {
        caller: ownerCaller(job.owner),
        requestId: job.requestId,
        transport: "execution",
        log: log.child({ reqId: job.requestId, execution: job.id }),
        maxTimeoutMs: maxTimeoutMs(),
        onStart: (call) => {
          bindAbort(call, hooks.signal, onSignalAbort, cancelled);
          hooks.onStart();
        },
        onProgress: (p) => hooks.onProgress(p),
        onInputRequest: (requests) => hooks.onInputRequest(requests as InputRequests),
      });
      return { status: "succeeded", result };
    } catch (err) {
      return failedOutcome(err, job.requestId, scrub);
    }
  };
}

/** How an execution whose call threw ended: `cancelled` or `failed`, with the (scrubbed) problem the sync call would have answered. */
export function failedOutcome(err: unknown, requestId: string, scrub: (s: string) => string): Outcome {
  const e = normalizeError(err);
  const problem = toProblem(e, requestId);
  return { status: e.code === "CANCELLED" ? "cancelled" : "failed", error: { ...problem, detail: scrub(problem.detail) } };
}

/** The caller an owner key (`kind:id`, see ownerKey) stands for: its principal and how it authenticated, for the log and audit lines. */
function ownerCaller(owner: string): Caller {
  const m = /^(apiKey|jwt):(.*)$/s.exec(owner);
  return m ? { id: m[2] ?? "", kind: m[1] as Caller["kind"], allows: () => true } : { id: owner, allows: () => true };
}
