import {
  MissingRequiredClientCapabilityError,
  ProtocolErrorCode,
  type CallToolRequest,
  type CallToolResult,
  type InputRequiredResult,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { hasTaskClientCapabilityV2, type CreateTaskResultV2, type DetailedTaskV2 } from "@modelcontextprotocol/ext-tasks/core/v2";
import { ToolnexusError } from "../../../core/errors.js";
import type { InputResponses } from "../../../core/input/requests.js";
import { ownerKey, type Caller } from "../../auth/index.js";
import type { CallPipeline } from "../../calls/call-pipeline.js";
import type { ExecutionEvent, ExecutionStore } from "../../executions/engine/store.js";
import { isTerminal, type ExecutionT } from "../../executions/schemas.js";
import type { ServiceState } from "../../service/service-state.js";
import { answerOf } from "../input/client-input.js";
import { JsonRpcError, toCallToolResult } from "../results.js";
import { taskInputRequired, taskRetryOf } from "../input/task-input.js";
import { TASKS_EXTENSION } from "../../../sources/mcp/call/task-v2.js";
import { createTaskResult, detailedTaskOf, problemError } from "./wire.js";

/** How a tool's calls may run as tasks on `/mcp`. */
type TaskSupport = "optional" | "required";

// What Retry-After tells a REST poller of an execution, in milliseconds.
const POLL_INTERVAL_MS = 1000;
// Execution ids (the task ids) are 128 random bits in hex: anything else is unknown without a lookup.
const TASK_ID = /^[0-9a-f]{32}$/;

/**
 * The MCP tasks extension (`io.modelcontextprotocol/tasks`) on `/mcp`, backed by executions: a
 * task is an execution of its caller (same store, memory or Redis, so any replica answers for
 * it; same owner check; same retention). The server decides which calls become tasks: those
 * of a tool with task support, from a client that declared the extension on the request.
 */
export class McpTasks {
  constructor(
    private readonly state: ServiceState,
    private readonly pipeline: CallPipeline,
    private readonly store: ExecutionStore,
  ) {}

  /**
   * The task support of `tool`: the config's `server.mcp.taskSupport` (exact name, else the
   * longest matching `prefix*`) over what the tool declares; undefined for a plain tool.
   */
  supportOf(tool: string): TaskSupport | undefined {
    const map = this.state.loaded.config.server.mcp.taskSupport ?? {};
    let configured = map[tool];
    if (configured === undefined) {
      let best = -1;
      for (const [key, value] of Object.entries(map)) {
        const prefix = key.endsWith("*") ? key.slice(0, -1) : undefined;
        if (prefix !== undefined && tool.startsWith(prefix) && prefix.length > best) {
          best = prefix.length;
          configured = value;
        }
      }
    }
    if (configured === "forbidden") return undefined;
    return configured ?? this.state.toolkit().get(tool)?.taskSupport;
  }

  /** True when this (2026-era) request declared the tasks extension in its client capabilities. */
  optedIn(ctx: ServerContext): boolean {
    return hasTaskClientCapabilityV2({ _meta: ctx.mcpReq.envelope });
  }

  /** The -32021 error of a task-only call (or a tasks/* request) from a client without the extension. */
  missingCapability(): MissingRequiredClientCapabilityError {
    return new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      `This request needs the ${TASKS_EXTENSION} extension: declare it in the request's client capabilities`,
    );
  }

  /**
   * `tools/call` as a task: the call is checked as a plain one (unknown, forbidden, overloaded,
   * bad arguments: the same answers), then submitted as an execution of the caller. An
   * optional one that settles within `server.mcp.taskAfterMs` is answered directly; otherwise
   * (and always for a required one's result) the answer is the task. One that asks for input
   * within that time, required or optional, is answered `input_required` (MRTR): the retry delivers the answer to the waiting
   * execution, which may then settle or become the task. Rejects with ToolnexusError.
   */
  async call(
    caller: Caller,
    requestId: string,
    params: CallToolRequest["params"],
    ctx: ServerContext,
    support: TaskSupport,
  ): Promise<CallToolResult | CreateTaskResultV2 | InputRequiredResult> {
    const owner = ownerKey(caller);
    const input = { sealer: this.state.sealer, inputTimeoutMs: this.state.loaded.config.server.inputTimeoutMs };
    const requestState = ctx.mcpReq.requestState();
    const inputResponses = (ctx.mcpReq.inputResponses ?? {}) as InputResponses;
    const retry = typeof requestState === "string" ? taskRetryOf(requestState, params.name, ownerKey(caller), input) : undefined;
    if (retry) {
      const waiting = await this.store.input(owner, retry.execution, inputResponses);
      if (!waiting) throw new JsonRpcError(ProtocolErrorCode.InvalidParams, "The task this state names is gone");
      // A retry answered an input round before the task: the next round may ask again the same way.
      return this.settle(caller, params, ctx, support, waiting, retry.after, true);
    }
    // A retry of a plain call's pending (its state opened before anything runs).
    const answer =
      typeof requestState === "string" ? answerOf(requestState, inputResponses, params.name, ownerKey(caller), input) : undefined;
    const body = { arguments: params.arguments ?? {}, ...(answer ? { answer } : {}) };
    const prepared = this.pipeline.prepare(params.name, body, caller, this.state.loaded.config.executions.maxTimeoutMs);
    this.pipeline.release(prepared);
    // A task never holds the caller's token (it may run on another replica; Redis must not keep it).
    if (prepared.tool.forwardAuth && caller.bearer !== undefined) {
      throw new ToolnexusError(
        "INVALID_REQUEST",
        `"${prepared.tool.name}" forwards the caller's token upstream, which a task does not hold: call it without the tasks extension`,
      );
    }
    const { execution } = await this.store.submit(
      {
        owner,
        tool: prepared.tool.name,
        body,
        requestId,
        timeoutMs: prepared.timeoutMs,
        transport: "mcp",
        ...(caller.bundle ? { bundle: caller.bundle } : {}),
      },
      prepared.tool.name,
    );
    return this.settle(caller, params, ctx, support, execution, 0, prepared.tool.inputBeforeTask === true);
  }

  /** What `tools/call` answers for `execution` once its events after `after` are seen (or not, for a required tool). */
  private async settle(
    caller: Caller,
    params: CallToolRequest["params"],
    ctx: ServerContext,
    support: TaskSupport,
    execution: ExecutionT,
    after: number,
    asksFirst: boolean,
  ): Promise<CallToolResult | CreateTaskResultV2 | InputRequiredResult> {
    // A required tool that asks before its task waits too, but only for a question: its result is
    // never answered directly (it is the task's), while its first input round is (MRTR).
    if (support === "required" && !asksFirst) return createTaskResult(execution, POLL_INTERVAL_MS);
    const settled = await this.settleWithin(ownerKey(caller), execution.id, ctx, params._meta?.progressToken, after);
    if (support === "optional" && settled?.event === "result") return toCallToolResult(settled.data);
    if (support === "optional" && settled?.event === "error") throw problemError(settled.data);
    if (settled?.event === "input_required") {
      const at = { tool: params.name, caller: ownerKey(caller), execution: execution.id, after: settled.id };
      const input = { sealer: this.state.sealer, inputTimeoutMs: this.state.loaded.config.server.inputTimeoutMs };
      const asked = taskInputRequired(ctx, settled.data.inputRequests, at, input);
      if (asked) return asked;
    }
    return createTaskResult(execution, POLL_INTERVAL_MS);
  }

  /** `tasks/get`: the caller's task with its result or error inline. */
  async get(caller: Caller, taskId: string): Promise<DetailedTaskV2> {
    return detailedTaskOf(await this.find(caller, taskId), POLL_INTERVAL_MS);
  }

  /** `tasks/cancel`: cancels wherever it runs; a terminal task is left as it is. Either way an empty ack. */
  async cancel(caller: Caller, taskId: string): Promise<Record<string, never>> {
    await this.find(caller, taskId);
    await this.store.cancel(ownerKey(caller), taskId);
    return {};
  }

  /**
   * `tasks/update`: delivers `inputResponses` to a task waiting for input, through the
   * executions' input path (owner only, on any replica). Responses to some of its requests are
   * kept until the others come (the task waits on those); responses to requests the task did
   * not make are ignored, and so is an update to a task that is not waiting (an ack); a
   * terminal task refuses them.
   */
  async update(caller: Caller, taskId: string, inputResponses: unknown): Promise<Record<string, never>> {
    const e = await this.find(caller, taskId);
    if (isTerminal(e.status)) throw new JsonRpcError(ProtocolErrorCode.InvalidParams, `Task ${taskId} has finished: it takes no input`);
    if (e.status !== "input_required" || !e.inputRequests) return {};
    if (typeof inputResponses !== "object" || inputResponses === null || Array.isArray(inputResponses)) {
      throw new JsonRpcError(ProtocolErrorCode.InvalidParams, "params.inputResponses must be an object keyed by the task's inputRequests");
    }
    const asked = Object.entries(inputResponses).filter(([k]) => Object.hasOwn(e.inputRequests ?? {}, k));
    await this.store.input(ownerKey(caller), taskId, Object.fromEntries(asked) as InputResponses, true);
    return {};
  }

  // Unknown, expired and another caller's tasks are the same -32602: nothing is revealed.
  private async find(caller: Caller, taskId: string): Promise<ExecutionT> {
    const e = TASK_ID.test(taskId) ? await this.store.get(ownerKey(caller), taskId) : undefined;
    if (!e) throw new JsonRpcError(ProtocolErrorCode.InvalidParams, "No such task for this caller (unknown, expired, or another caller's)");
    return e;
  }

  /**
   * Waits up to `taskAfterMs` for the execution's last event, relaying its progress to the
   * client meanwhile. A client that leaves before then never learned the task id: the
   * execution is cancelled rather than left running for nobody.
   */
  private async settleWithin(
    owner: string,
    id: string,
    ctx: ServerContext,
    progressToken: unknown,
    after: number,
  ): Promise<ExecutionEvent | undefined> {
    const afterMs = this.state.loaded.config.server.mcp.taskAfterMs;
    if (afterMs === 0) return undefined;
    const { signal } = ctx.mcpReq;
    let finish: (e: ExecutionEvent | undefined) => void = () => {};
    const settled = new Promise<ExecutionEvent | undefined>((resolve) => (finish = resolve));
    const watch = await this.store.watch(owner, id, after, (ev) => {
      if (ev.event !== "progress") return finish(ev);
      if (typeof progressToken === "string" || typeof progressToken === "number") {
        ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, ...ev.data } }).catch(() => {});
      }
    });
    const timer = setTimeout(() => finish(undefined), afterMs);
    const onAbort = () => {
      void this.store.cancel(owner, id).catch(() => {});
      finish(undefined);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await settled;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      watch?.stop();
    }
  }
}
