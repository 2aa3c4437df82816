import { ToolnexusError } from "../../../core/errors.js";
import type { InputRequests, InputResponses } from "../../../core/input/requests.js";
import { pendingOf } from "../../../core/input/pending.js";
import { EVERY_INPUT_CAPABILITY, pendingAnswer, pendingInputRequests } from "../../../core/input/pending-input.js";
import type { ToolResult } from "../../../core/types.js";
import type { FastifyBaseLogger } from "fastify";
import type { Sealer } from "../../../core/seal.js";
import type { Caller } from "../../auth/index.js";
import { bindAbort, onSignalAbort } from "../../calls/bind-abort.js";
import type { CallPipeline } from "../../calls/call-pipeline.js";
import { normalizeError, toProblem } from "../../http/problem.js";
import type { Abortable, ServiceState } from "../../service/service-state.js";
import { openCallerToken } from "./caller-token.js";
import type { Job, Outcome, RunHooks, Runner } from "./store.js";

const cancelled = () => new ToolnexusError("CANCELLED", "The execution was cancelled");

/**
 * The runner every store uses: one execution is one call through the pipeline (limits,
 * validation, timeout capped at `executions.maxTimeoutMs`, metrics, log line, scrubbing),
 * its cancel bound to the call signal. The caller's allowlist was checked at submit; the
 * owner id is all a replica that runs the job knows of it, with the caller's token sealed in
 * the job for a tool that acts for the caller upstream (gone once expired: that call fails).
 * A call that ends in "input required" (the tool's pending, a 2026 upstream's input requests)
 * holds the execution `input_required` instead of ending it: the owner's answer re-runs the
 * call with it, for as many rounds as the tool asks.
 */
export function pipelineRunner(
  pipeline: CallPipeline,
  log: FastifyBaseLogger,
  maxTimeoutMs: () => number,
  scrub: (s: string) => string,
  sealer: Sealer,
  /** Where shutdown finds the calls to abort: an execution waiting between two rounds is one. */
  service?: Pick<ServiceState, "track" | "untrack">,
): Runner {
  return async (job, hooks): Promise<Outcome> => {
    try {
      const options: Parameters<CallPipeline["call"]>[2] = {
        caller: jobCaller(job, sealer),
        requestId: job.requestId,
        transport: job.transport ?? "execution",
        log: log.child({ reqId: job.requestId, execution: job.id }),
        maxTimeoutMs: maxTimeoutMs(),
        onStart: (call) => {
          bindAbort(call, hooks.signal, onSignalAbort, cancelled);
          hooks.onStart();
        },
        onProgress: (p) => hooks.onProgress(p),
        onInputRequest: (requests) => hooks.onInputRequest(requests as InputRequests),
      };
      let result = await pipeline.call(job.tool, job.body, options);
      for (let asked = askedOf(result); asked; asked = askedOf(result)) {
        const responses = await answered(hooks, asked.requests, service).catch((err: unknown) => {
          // Between two rounds no call runs to turn the cancel into CANCELLED: the wait ends
          // with the signal's own reason (an AbortError, BullMQ's string), which is no problem.
          throw hooks.signal.aborted ? cancelled() : err;
        });
        const answer = pendingAnswer(asked.id, asked.kind, responses);
        result = await pipeline.call(job.tool, { ...job.body, answer }, options);
      }
      return { status: "succeeded", result };
    } catch (err) {
      return failedOutcome(err, job.requestId, scrub);
    }
  };
}

/**
 * What a result that ends in "input required" asks the execution's owner, who can answer every
 * kind: the pending's own input requests, or its question as a form elicitation (as on /mcp).
 */
function askedOf(result: ToolResult): { id: string; kind: string; requests: InputRequests } | undefined {
  const p = pendingOf(result);
  const requests = p && pendingInputRequests(p, EVERY_INPUT_CAPABILITY);
  return p && requests ? { id: p.id, kind: p.kind, requests } : undefined;
}

/**
 * The owner's answer to `requests`. No call runs meanwhile, so the wait counts as one: shutdown
 * ends it (NOT_READY) at the end of its grace period, as it aborts a call.
 */
async function answered(
  hooks: RunHooks,
  requests: InputRequests,
  service: Pick<ServiceState, "track" | "untrack"> | undefined,
): Promise<InputResponses> {
  let stop: (reason: unknown) => void = () => {};
  const stopped = new Promise<never>((_, reject) => (stop = reject));
  const wait = hooks.onInputRequest(requests);
  // The loser of the race settles later (the store ends the wait with the outcome): nobody awaits it.
  void wait.catch(() => undefined);
  void stopped.catch(() => undefined);
  const waiter: Abortable = { abort: (reason) => stop(reason) };
  const running = service?.track(waiter);
  try {
    return await Promise.race([wait, stopped]);
  } finally {
    if (running) service?.untrack(running);
  }
}

/** How an execution whose call threw ended: `cancelled` or `failed`, with the (scrubbed) problem the sync call would have answered. */
export function failedOutcome(err: unknown, requestId: string, scrub: (s: string) => string): Outcome {
  const e = normalizeError(err);
  const problem = toProblem(e, requestId);
  return { status: e.code === "CANCELLED" ? "cancelled" : "failed", error: { ...problem, detail: scrub(problem.detail) } };
}

/** The caller of a job: its owner, and the bearer sealed with it when it still opens. */
function jobCaller(job: Job, sealer: Sealer): Caller {
  const owner = ownerCaller(job.owner);
  const caller = job.bundle ? { ...owner, bundle: job.bundle } : owner;
  const bearer = job.callerToken === undefined ? undefined : openCallerToken(sealer, job.owner, job.callerToken);
  return bearer === undefined ? caller : { ...caller, bearer };
}

/** The caller an owner key (`kind:id`, see ownerKey) stands for: its principal and how it authenticated, for the log and audit lines. */
function ownerCaller(owner: string): Caller {
  const m = /^(apiKey|jwt):(.*)$/s.exec(owner);
  return m ? { id: m[2] ?? "", kind: m[1] as Caller["kind"], allows: () => true } : { id: owner, allows: () => true };
}
