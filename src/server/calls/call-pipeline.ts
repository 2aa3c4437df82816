// Imported, not read off globalThis, where it is a getter: a global's getter is looked up anew
// on each read, twice a call.
import { performance } from "node:perf_hooks";
import { DEFAULT_SHAPE_LIMITS, shapeError } from "../../core/checks/argument-shape.js";
import { ToolnexusError, isToolnexusError } from "../../core/errors.js";
import { pendingOf } from "../../core/input/pending.js";
import type { AuditCall } from "../../governance/audit-line.js";
import type { Tool, ToolResult } from "../../core/types.js";
import { insufficientScope, type Caller } from "../auth/index.js";
import { callSignal, type CallSignal } from "./call-signal.js";
import type { Metrics, Outcome } from "../observability/metrics.js";
import type { CallEnvelope } from "./envelope.js";
import type { Abortable, ServiceState } from "../service/service-state.js";
import type { RunningEntry } from "../service/running-calls.js";
import { endToolSpan, runInSpan, startToolSpan } from "../observability/telemetry.js";
import { UpstreamCredentials } from "./upstream-credentials.js";
import { CallContext, execute, type CallOptions, type PreparedCall } from "./call-context.js";
import { auditCall, logCall, type CallEnd } from "./call-record.js";

// How an error that ended a call reads in logs and metrics; anything else before the tool ran is "rejected".
const OUTCOME_BY_CODE: Partial<Record<ToolnexusError["code"], Outcome>> = {
  TOOL_TIMEOUT: "timeout",
  CLIENT_CLOSED: "cancelled",
  CANCELLED: "cancelled",
  NOT_READY: "cancelled",
  TOOL_FAILED: "failed",
  UPSTREAM_UNAVAILABLE: "failed",
  UPSTREAM_AUTH_FAILED: "failed",
  INTERNAL: "failed",
};

/**
 * The one execute pipeline (docs/architecture.md) behind every transport (REST, SSE, `/mcp`,
 * executions): lookup, allowlist, limits, validation, one AbortSignal, the run, metrics and
 * the per-call log line. Transports differ only in how they bind cancellation and progress.
 */
export class CallPipeline {
  /** What goes upstream for a caller; the credentials folder sets its `user` resolver. */
  readonly upstream = new UpstreamCredentials(() => this.state.loaded.config.auth?.jwt?.issuer);

  constructor(
    private readonly state: ServiceState,
    private readonly metrics: Metrics,
    private readonly scrubResult: (r: ToolResult) => ToolResult,
    /** The audit trail: every call, whatever its transport and outcome, ends here once. */
    private readonly audit?: { record(call: AuditCall): void },
  ) {}

  /** Writes one audit line for a request that is not a tool call (a resource read, a prompt get, a completion). */
  recordAudit(call: AuditCall): void {
    this.audit?.record(call);
  }

  /**
   * Checks a call without running it. Throws TOOL_NOT_FOUND, FORBIDDEN, OVERLOADED, NOT_READY
   * or INVALID_ARGUMENTS. The returned call holds its toolkit: run it or {@link release} it.
   */
  prepare(name: string, body: CallEnvelope, caller: Caller, maxTimeoutMs?: number): PreparedCall {
    return this.check(name, body, caller, maxTimeoutMs, {});
  }

  /** {@link prepare}, noting the tool in `found` as soon as it is known (metrics label a rejected call by it). */
  private check(name: string, body: CallEnvelope, caller: Caller, maxTimeoutMs: number | undefined, found: { tool?: Tool }): PreparedCall {
    // Read per call: a reload may change limits and timeouts.
    const { server } = this.state.loaded.config;
    const tk = this.state.acquire();
    try {
      const tool = tk.get(name);
      if (!tool) throw new ToolnexusError("TOOL_NOT_FOUND", `No tool named "${name}"`);
      found.tool = tool;
      if (!caller.allows(tool.name)) throw new ToolnexusError("FORBIDDEN", `This key may not use "${tool.name}"`);
      const missing = caller.missingScopes?.(tool.name);
      if (missing) throw insufficientScope(tool.name, missing);
      if (this.state.hold.withheld(tool.name)) {
        throw new ToolnexusError(
          "TOOL_DEFINITION_CHANGED",
          `The definition of "${tool.name}" is not the approved one; it is withheld until an operator approves it`,
        );
      }
      // Work a tool kept doing after its call was abandoned (it ignored its signal) still counts.
      if (this.state.inFlight + this.state.abandoned >= server.maxConcurrent) {
        throw new ToolnexusError("OVERLOADED", `More than ${server.maxConcurrent} calls in flight`, { headers: { "retry-after": "1" } });
      }
      const args = body.arguments ?? {};
      tk.validate(tool, args);
      // The answer's data reaches the tool as it is: bounded like arguments.
      const deep = body.answer?.data === undefined ? undefined : shapeError(body.answer.data, DEFAULT_SHAPE_LIMITS, "/answer/data");
      if (deep) throw new ToolnexusError("INVALID_REQUEST", `The answer's data ${deep.message}`, { errors: [deep] });
      const timeoutMs = Math.min(body.timeoutMs ?? server.timeoutMs, maxTimeoutMs ?? server.maxTimeoutMs);
      return { tool, args, timeoutMs, answer: body.answer, toolkit: tk };
    } catch (err) {
      this.state.release(tk);
      throw err;
    }
  }

  /** Gives back the toolkit of a prepared call that will not run. */
  release(prepared: PreparedCall): void {
    this.state.release(prepared.toolkit);
  }

  /**
   * Prepares and runs one call, records its metrics and writes its log line. Resolves with
   * the (scrubbed) ToolResult; rejects with a ToolnexusError carrying the status to answer.
   */
  async call(name: string, body: CallEnvelope, o: CallOptions): Promise<ToolResult> {
    const started = performance.now();
    const found: { tool?: Tool } = {};
    let outcome: Outcome = "rejected";
    let pending = false;
    let statusCode = 200;
    const span = startToolSpan(name, o.caller.id);
    try {
      const prepared = this.check(name, body, o.caller, o.maxTimeoutMs, found);
      // No closure for the span when tracing is off (the common case, once per call).
      const run = span ? runInSpan(span, () => this.start(prepared, o)) : this.start(prepared, o);
      // Awaited here, not in an async function of its own: one promise fewer per call, each
      // settled with the result (a `then` looked up on it) and awaited once more.
      let result: ToolResult;
      try {
        result = await run.work;
      } catch (err) {
        throw isToolnexusError(err)
          ? err
          : new ToolnexusError("TOOL_FAILED", `Tool "${prepared.tool.name}" failed; see the server log for request ${o.requestId}`, {
              cause: err,
            });
      } finally {
        this.end(prepared, run);
      }
      pending = pendingOf(result) !== undefined;
      outcome = result.isError && !pending ? "tool_error" : "ok";
      return this.scrubResult(result);
    } catch (err) {
      const { tool } = found;
      if (isToolnexusError(err)) {
        statusCode = err.status;
        if (tool) outcome = OUTCOME_BY_CODE[err.code] ?? outcome;
      } else {
        statusCode = 500;
      }
      if (outcome === "failed") o.log.error({ err: (err as Error).cause ?? err, tool: tool?.name }, "tool failed");
      throw err;
    } finally {
      const { tool } = found;
      const ms = performance.now() - started;
      this.metrics.record(tool?.name, tool?.source, outcome, ms / 1000);
      const traceId = endToolSpan(span, tool?.source, outcome, statusCode);
      o.onEnd?.(ms);
      const end: CallEnd = { name, tool, outcome, statusCode, pending, durationMs: Math.round(ms * 10) / 10, traceId };
      if (this.audit) this.audit.record(auditCall(end, body, o));
      logCall(end, o);
    }
  }

  /**
   * Starts a prepared call under its call signal: its `work` settles with the tool, or first
   * with the abort's reason. {@link end} follows once it settled, whatever it settled with.
   */
  private start(p: PreparedCall, o: CallOptions): StartedCall {
    const call = callSignal(p.timeoutMs);
    const running = this.state.track(call);
    try {
      o.onStart?.(call);
      const ctx = new CallContext(call, p.timeoutMs, o.requestId, o.caller, p.answer, o.onProgress, o.onInputRequest, o.onLog);
      if (o.clientCapabilities) ctx.clientCapabilities = o.clientCapabilities;
      // An exchange runs before the tool, within the call's timeout: a failure reaches no upstream.
      const cred = this.upstream.bearer(p.tool, o.caller, o.log);
      const work = call.run(() =>
        cred instanceof Promise
          ? cred.then((c) => ("login" in c ? c.login : this.upstream.checked(p.tool, o.caller, o.log, () => execute(p, ctx, c))))
          : execute(p, ctx, cred),
      );
      return { call, running, work };
    } catch (err) {
      return { call, running, work: Promise.reject(err) };
    }
  }

  /**
   * Ends a started call and releases its toolkit once the tool's work is done. A tool that
   * ignores its signal keeps its concurrency slot and its toolkit until its work really stops,
   * though the caller got 504.
   */
  private end(p: PreparedCall, { call, running }: StartedCall): void {
    const { state } = this;
    state.untrack(running);
    call.dispose();
    if (call.running) {
      state.abandoned++;
      void call.settled.then(() => {
        state.abandoned--;
        state.release(p.toolkit);
      });
    } else {
      state.release(p.toolkit);
    }
  }
}

/** A call the pipeline started: its signal, its entry among the running calls, and its work. */
interface StartedCall {
  call: CallSignal;
  running: RunningEntry<Abortable>;
  work: Promise<ToolResult>;
}
