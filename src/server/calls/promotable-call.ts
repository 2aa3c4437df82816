import { ToolnexusError } from "../../core/errors.js";
import type { InputRequests, InputResponses } from "../../core/input/requests.js";
import type { Progress, ToolResult } from "../../core/types.js";
import { ownerKey, type Caller } from "../auth/index.js";
import { bindAbort, onSignalAbort } from "./bind-abort.js";
import type { CallSignal } from "./call-signal.js";

/** A synchronous call that asked its caller mid-call, as handed over to be held past its response. */
interface HeldCall {
  /** The owner key of the caller (see ownerKey). */
  owner: string;
  tool: string;
  requestId: string;
}

/** A held call taken over as an execution: where its progress, questions and end now go. */
export interface Promoted {
  /** The execution, waiting on the first questions (the 202 body, the SSE `execution` event). */
  execution: { id: string };
  /** Aborts when the execution is cancelled. */
  signal: AbortSignal;
  onProgress(p: Progress): void;
  /** Asks through the execution (`input_required`); `onAsked` once an answer is taken. */
  ask(requests: InputRequests, onAsked?: () => void): Promise<InputResponses>;
  /** Records how the call ended: its result, or the error it failed with. */
  settle(outcome: { result: ToolResult } | { error: unknown }): void;
}

/** What turns a held synchronous call into an execution (the executions store, in executions/engine/execution-promotion.ts). */
export interface Promotion {
  adopt(call: HeldCall): Promise<Promoted>;
}

const cancelled = () => new ToolnexusError("CANCELLED", "The execution was cancelled");

/**
 * One synchronous call that may be promoted: before it asks, nothing changes; at its first
 * question it becomes an execution (`promoted` resolves with it, the route answers 202 or
 * sends the `execution` event), the execution's cancel aborts it, and from then on its
 * questions and progress go through the execution and its outcome is recorded there.
 */
export class PromotableCall {
  private call?: CallSignal;
  private held?: Promise<Promoted>;
  /** The execution's cancel, once promoted. */
  private cancel?: AbortSignal;
  private adopted = false;
  private settleFirst!: (p: { promoted: Promoted; requests: InputRequests }) => void;
  /** Called once each round's questions are recorded (an answer is taken), the first round's included. */
  onAsked?: (promoted: Promoted, requests: InputRequests) => void;
  /** Resolves once the call was promoted and its first question is recorded (an answer is taken). */
  readonly promoted = new Promise<{ promoted: Promoted; requests: InputRequests }>((r) => (this.settleFirst = r));

  constructor(
    private readonly promotion: Promotion,
    private readonly caller: Caller,
    private readonly tool: string,
    private readonly requestId: string,
  ) {}

  /** True once the call belongs to its execution (the caller's connection no longer decides it). */
  get isPromoted(): boolean {
    return this.adopted;
  }

  /**
   * The pipeline's onStart: the call to abort when the execution is cancelled. A promoted call
   * that asks again is called again (a re-call with the answers): each of its calls is bound.
   */
  bind(call: CallSignal): void {
    this.call = call;
    if (this.cancel) bindAbort(call, this.cancel, onSignalAbort, cancelled);
  }

  /** The pipeline's onInputRequest. */
  readonly ask = async (requests: InputRequests): Promise<InputResponses> => {
    const first = this.held === undefined;
    this.held ??= this.promotion.adopt({ owner: ownerKey(this.caller), tool: this.tool, requestId: this.requestId }).then((p) => {
      this.cancel = p.signal;
      if (this.call) bindAbort(this.call, p.signal, onSignalAbort, cancelled);
      this.adopted = true;
      return p;
    });
    const promoted = await this.held;
    const onAsked = () => {
      if (first) this.settleFirst({ promoted, requests });
      this.onAsked?.(promoted, requests);
    };
    return promoted.ask(requests, onAsked).catch((err: unknown) => {
      // Between two rounds no call runs to turn the cancel into CANCELLED: the wait ends with
      // the signal's own reason (an AbortError, BullMQ's string), which is no problem.
      throw promoted.signal.aborted ? cancelled() : err;
    });
  };

  /** Progress of a promoted call also reaches its execution. */
  progress(p: Progress): void {
    void this.held?.then((h) => h.onProgress(p)).catch(() => undefined);
  }

  /** Hands the call's end to its execution, when it was promoted. */
  end(outcome: { result: ToolResult } | { error: unknown }): void {
    // Not adopted (the store refused): the call was answered synchronously, nothing to record.
    void this.held?.then((h) => h.settle(outcome)).catch(() => undefined);
  }
}
