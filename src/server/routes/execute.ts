import { Type, type FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import { ToolnexusError, isToolnexusError } from "../../core/errors.js";
import { pendingOf } from "../../core/pending.js";
import type { Toolkit } from "../../core/toolkit.js";
import type { Answer, Tool, ToolContext, ToolResult as ToolResultT } from "../../core/types.js";
import { callSignal, type CallSignal } from "../call-signal.js";
import { ExecuteBody, ProblemResponse as problem, ToolParams, ToolResult } from "../schemas.js";
import type { Metrics, Outcome } from "../metrics.js";
import type { ServiceState } from "../service-state.js";

// How an error that ended a call reads in logs and metrics; anything else before the tool ran is "rejected".
const OUTCOME_BY_CODE: Partial<Record<ToolnexusError["code"], Outcome>> = {
  TOOL_TIMEOUT: "timeout",
  CLIENT_CLOSED: "cancelled",
  NOT_READY: "cancelled",
  TOOL_FAILED: "failed",
  UPSTREAM_UNAVAILABLE: "failed",
  INTERNAL: "failed",
};

/** The ToolContext of one REST call. A class, so `signal` stays a cheap lazy getter on a stable shape. */
class CallContext implements ToolContext {
  constructor(private readonly call: CallSignal, readonly timeout: number, readonly requestId: string, readonly caller: string, readonly answer?: Answer) {}
  get signal(): AbortSignal {
    return this.call.signal;
  }
}

/** `POST /tools/{name}/execute`: the execute pipeline of DESIGN §4–§5. */
export const executeRoute: FastifyPluginAsyncTypebox<{ state: ServiceState; metrics: Metrics; scrubResult: (r: ToolResultT) => ToolResultT }> = async (app, { state, metrics, scrubResult }) => {
  // `curl -X POST` with no body is a call with no arguments, not a malformed request.
  app.addHook("preValidation", (request, _reply, done) => {
    request.body ??= {};
    done();
  });

  app.post("/tools/:name/execute", {
    schema: {
      operationId: "executeTool",
      summary: "Run one tool",
      description: "An isError result is still 200: it is an outcome the model reads. A tool that fails answers 500 TOOL_FAILED.",
      tags: ["tools"],
      params: ToolParams,
      body: Type.Ref(ExecuteBody),
      response: { 200: Type.Ref(ToolResult), "4xx": problem, "5xx": problem },
    },
  }, async (request, reply) => {
    const started = performance.now();
    const body = request.body ?? {};
    let tool: Tool | undefined;
    let outcome: Outcome = "rejected";
    let pending = false;
    let statusCode = 200;
    let tk: Toolkit | undefined;
    try {
      // Read per call: a reload may change limits and timeouts.
      const { server } = state.loaded.config;
      tk = state.acquire();
      tool = tk.get(request.params.name);
      if (!tool) throw new ToolnexusError("TOOL_NOT_FOUND", `No tool named "${request.params.name}"`);
      if (!request.caller.allows(tool.name)) throw new ToolnexusError("FORBIDDEN", `This key may not use "${tool.name}"`);
      // Work a tool kept doing after its call was abandoned (it ignored its signal) still counts.
      if (state.inFlight + state.abandoned >= server.maxConcurrent) {
        throw new ToolnexusError("OVERLOADED", `More than ${server.maxConcurrent} calls in flight`, { headers: { "retry-after": "1" } });
      }
      const args = body.arguments ?? {};
      tk.validate(tool, args);

      const timeoutMs = Math.min(body.timeoutMs ?? server.timeoutMs, server.maxTimeoutMs);
      const held = tk;
      tk = undefined; // from here runTool owns the toolkit's release
      const result = await runTool(state, held, tool, args, { reply, timeoutMs, requestId: request.id, caller: request.caller.id, answer: body.answer });
      pending = pendingOf(result) !== undefined;
      outcome = result.isError && !pending ? "tool_error" : "ok";
      return scrubResult(result);
    } catch (err) {
      if (isToolnexusError(err)) {
        statusCode = err.status;
        if (tool) outcome = OUTCOME_BY_CODE[err.code] ?? outcome;
      }
      if (outcome === "failed") request.log.error({ err: (err as Error).cause ?? err, tool: tool?.name }, "tool failed");
      throw err;
    } finally {
      if (tk) state.release(tk);
      const ms = performance.now() - started;
      metrics.record(tool?.name, tool?.source, outcome, ms / 1000);
      reply.header("server-timing", `tool;dur=${ms.toFixed(1)}`);
      // The line's object is built only when it will be written (a hot path at logLevel warn).
      if ((request.log as { isLevelEnabled?(level: string): boolean }).isLevelEnabled?.("info") !== false) {
        request.log.info({
          tool: request.params.name, source: tool?.source, caller: request.caller.id, outcome, statusCode,
          ...(pending ? { pending } : {}), durationMs: Math.round(ms * 10) / 10,
        }, "tool call");
      }
    }
  });
};

/** What a call carries into {@link runTool}. */
interface CallOptions {
  reply: FastifyReply;
  timeoutMs: number;
  requestId: string;
  caller: string;
  answer: Answer | undefined;
}

/**
 * Runs one tool under its call signal and releases the toolkit when the tool's work is done.
 * A throw that is not ours becomes TOOL_FAILED. A tool that ignores its signal keeps its
 * concurrency slot and its toolkit until its work really stops, though the caller got 504.
 */
async function runTool(state: ServiceState, tk: Toolkit, tool: Tool, args: Record<string, unknown>, o: CallOptions): Promise<ToolResultT> {
  const call = callSignal(o.reply, o.timeoutMs);
  state.track(call);
  try {
    const ctx = new CallContext(call, o.timeoutMs, o.requestId, o.caller, o.answer);
    return await call.run(() => tool.execute(args, ctx));
  } catch (err) {
    throw isToolnexusError(err) ? err : new ToolnexusError("TOOL_FAILED", `Tool "${tool.name}" failed; see the server log for request ${o.requestId}`, { cause: err });
  } finally {
    state.calls.delete(call);
    call.dispose();
    if (call.running) {
      state.abandoned++;
      void call.settled.then(() => {
        state.abandoned--;
        state.release(tk);
      });
    } else {
      state.release(tk);
    }
  }
}
