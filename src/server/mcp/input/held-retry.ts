import type { InputRequiredResult } from "@modelcontextprotocol/server";
import { ToolnexusError } from "../../../core/errors.js";
import { INPUT_REPLY_KEY, type InputRequests, type InputResponses } from "../../../core/input/requests.js";
import { invalidState, SEAL_PURPOSES, type Sealer } from "../../../core/seal.js";
import type { ToolResult } from "../../../core/types.js";
import { ownerKey, type Caller } from "../../auth/index.js";
import type { CallSignal } from "../../calls/call-signal.js";
import { PromotableCall, type Promotion } from "../../calls/promotable-call.js";
import type { ExecutionEvent, ExecutionStore } from "../../executions/engine/store.js";
import { problemError } from "../tasks/wire.js";

// Bound into the requestState: a state of the stateless input path never opens here, nor the reverse.
const PURPOSE = SEAL_PURPOSES.heldRetry;
const METHODS = { elicitation: "elicitation/create", sampling: "sampling/createMessage" } as const;

/** A held call's requestState: owner, execution, tool, and the round it answers. */
type HeldState = { o: string; e: string; t: string; r: number };

/** How a plain call ended on this request: its result, or the questions of its held upstream. */
export type HeldOutcome = { result: ToolResult } | { inputRequired: InputRequiredResult };

/** The hooks a promotable call gives the pipeline, and how its request ends. */
export interface HeldPlainCall {
  bind(call: CallSignal): void;
  ask(requests: InputRequests): Promise<InputResponses>;
  /** True once the call belongs to its execution (this request's end no longer cancels it). */
  readonly promoted: boolean;
  /** The call's result, or `input_required` as soon as its upstream asks (the call goes on, held). */
  settle(run: Promise<ToolResult>): Promise<HeldOutcome>;
}

/**
 * A 2026 client's plain `tools/call` (no task) whose 2025 upstream asks mid-call: the call is
 * promoted to an execution (as a REST call is) and the request answers `input_required` with
 * the upstream's questions and a sealed `requestState` naming that execution. The retry, on
 * any replica, delivers `inputResponses` through the executions' input path and answers the
 * call's next questions (another `input_required`) or its result.
 */
export class HeldRetry {
  constructor(
    private readonly sealer: Sealer,
    private readonly store: ExecutionStore,
    private readonly promotion: Promotion,
    private readonly inputTimeoutMs: () => number,
  ) {}

  /** A promotable call, when the client declared it answers elicitation or sampling (else none: the upstream is refused, as before). */
  start(caller: Caller, tool: string, requestId: string, caps: Record<string, unknown>): HeldPlainCall | undefined {
    const methods = new Set<string>(Object.entries(METHODS).flatMap(([cap, method]) => (caps[cap] ? [method] : [])));
    if (methods.size === 0) return undefined;
    const held = new PromotableCall(this.promotion, caller, tool, requestId);
    const owner = ownerKey(caller);
    return {
      bind: (call) => held.bind(call),
      ask: (requests) => {
        if (Object.values(requests).every((r) => methods.has(r.method))) return held.ask(requests);
        // Never ask a client what it did not declare: the upstream is refused, and its call goes on.
        const refused = {
          [INPUT_REPLY_KEY]: { error: { code: -32601, message: "Method not found: the client did not declare this capability" } },
        };
        return Promise.resolve(Object.fromEntries(Object.keys(requests).map((k) => [k, refused])));
      },
      get promoted() {
        return held.isPromoted;
      },
      settle: async (run) => {
        void run.then(
          (result) => held.end({ result }),
          (error: unknown) => held.end({ error }),
        );
        const first = await Promise.race([run.then(() => undefined), held.promoted]);
        if (!first) return { result: await run };
        return { inputRequired: this.inputRequired({ o: owner, e: first.promoted.execution.id, t: tool, r: 1 }, first.requests) };
      },
    };
  }

  /**
   * The retry of a state this class sealed: undefined when `requestState` is not one (the
   * stateless input path then opens it, or refuses it). INVALID_STATE for another caller's or
   * another tool's state; the executions' errors when the call no longer waits (INPUT_TIMEOUT,
   * EXECUTION_NOT_WAITING, EXECUTION_NOT_FOUND).
   */
  async resume(
    caller: Caller,
    tool: string,
    requestState: string,
    inputResponses: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<HeldOutcome | undefined> {
    let state: HeldState;
    try {
      state = this.sealer.open<HeldState>(PURPOSE, requestState);
    } catch {
      return undefined;
    }
    if (state.o !== ownerKey(caller) || state.t !== tool) throw invalidState();
    if (Object.values(inputResponses).some((r) => typeof r !== "object" || r === null || Array.isArray(r)))
      throw new ToolnexusError("INVALID_REQUEST", "Each of inputResponses must be the result object answering one request");
    // Watched before the answer goes: the events it causes are never missed, on whichever replica the call runs.
    let done!: (e: ExecutionEvent) => void;
    let gone!: (err: unknown) => void;
    const next = new Promise<ExecutionEvent>((resolve, reject) => ((done = resolve), (gone = reject)));
    // The client left the retry: stop waiting (the held call goes on; a later retry is refused as answered).
    const onAbort = () => gone(new ToolnexusError("CLIENT_CLOSED", "The client closed the request"));
    let rounds = 0;
    const watch = await this.store.watch(state.o, state.e, 0, (ev) => {
      if (ev.event === "progress") return;
      // The round answered now is round r: the (r + 1)th question, or the end, is what comes next.
      if (ev.event === "input_required" && ++rounds <= state.r) return;
      done(ev);
    });
    if (!watch) throw new ToolnexusError("EXECUTION_NOT_FOUND", "The call this state names has ended");
    try {
      const delivered = await this.store.input(state.o, state.e, inputResponses as InputResponses);
      if (!delivered) throw new ToolnexusError("EXECUTION_NOT_FOUND", "The call this state names has ended");
      signal.addEventListener("abort", onAbort, { once: true });
      if (signal.aborted) onAbort();
      const ev = await next;
      if (ev.event === "result") return { result: ev.data };
      if (ev.event === "error") throw problemError(ev.data);
      if (ev.event === "input_required") return { inputRequired: this.inputRequired({ ...state, r: state.r + 1 }, ev.data.inputRequests) };
      return undefined;
    } finally {
      signal.removeEventListener("abort", onAbort);
      watch.stop();
    }
  }

  private inputRequired(state: HeldState, requests: InputRequests): InputRequiredResult {
    const requestState = this.sealer.seal(PURPOSE, state, this.inputTimeoutMs());
    return { resultType: "input_required", inputRequests: requests, requestState } as InputRequiredResult;
  }
}
