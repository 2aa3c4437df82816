import { ToolnexusError } from "../../core/errors.js";
import type { InputRequests, InputResponses } from "../../core/input-requests.js";
import type { Progress, ToolResult } from "../../core/types.js";
import { ownerKey, type Caller } from "../auth/index.js";
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

/** What turns a held synchronous call into an execution (the executions store, in executions/engine/promotion.ts). */
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

  /** The pipeline's onStart: the call to abort when the execution is cancelled. */
  bind(call: CallSignal): void {
    this.call = call;
  }

  /** The pipeline's onInputRequest. */
  readonly ask = async (requests: InputRequests): Promise<InputResponses> => {
    const first = this.held === undefined;
    this.held ??= this.promotion.adopt({ owner: ownerKey(this.caller), tool: this.tool, requestId: this.requestId }).then((p) => {
      const call = this.call;
      if (call) p.signal.addEventListener("abort", () => call.abort(cancelled()), { once: true });
      this.adopted = true;
      return p;
    });
    const promoted = await this.held;
    return promoted.ask(requests, () => {
      if (first) this.settleFirst({ promoted, requests });
      this.onAsked?.(promoted, requests);
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
