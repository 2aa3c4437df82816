import { ToolnexusError } from "../../../core/errors.js";
import type { InputRequests, InputResponses } from "../../../core/input/requests.js";
import { checkResponses, InputWaits, notWaiting, stillOpen } from "../engine/input-wait.js";
import { backToRunning, emit, update, type MemoryEntry } from "./entry.js";
import { isTerminal, type ExecutionT } from "../schemas.js";

/**
 * The input path of executions held in this process: a call asks (the execution turns
 * `input_required`, its followers see the requests) and waits for its owner's answer, which
 * may come in parts (each answering some of the open requests).
 */
export class MemoryInput {
  private readonly waits = new InputWaits();

  constructor(
    /** `server.inputTimeoutMs`, read per wait. */
    private readonly inputTimeoutMs: () => number,
  ) {}

  /** The call of `e` asks its caller `inputRequests`; resolves with the answer (INPUT_TIMEOUT, or the cancel's reason). */
  async ask(e: MemoryEntry, inputRequests: InputRequests, onAsked?: () => void): Promise<InputResponses> {
    if (isTerminal(e.execution.status)) throw notWaiting(e.execution.status);
    delete e.answered;
    update(e, { status: "input_required", inputRequests });
    emit(e, { event: "input_required", data: { inputRequests } });
    try {
      const answer = this.waits.wait(e.execution.id, this.inputTimeoutMs(), e.cancel.signal);
      onAsked?.();
      return await answer;
    } finally {
      if (e.execution.status === "input_required") backToRunning(e);
    }
  }

  /** The owner's answer to `e` (with `partial`, to some of its open requests: it waits on the others). */
  answer(e: MemoryEntry, responses: InputResponses, partial: boolean): ExecutionT {
    const { status, inputRequests, error } = e.execution;
    if (status !== "input_required" || !inputRequests) {
      if (error?.code === "INPUT_TIMEOUT") throw new ToolnexusError("INPUT_TIMEOUT", "The input request has expired");
      throw notWaiting(status);
    }
    checkResponses(inputRequests, responses, partial);
    if (Object.keys(responses).length === 0) return e.execution;
    const answered = { ...e.answered, ...responses };
    const open = stillOpen(inputRequests, answered);
    if (Object.keys(open).length > 0) {
      e.answered = answered;
      update(e, { inputRequests: open });
      return e.execution;
    }
    backToRunning(e);
    this.waits.answer(e.execution.id, answered);
    return e.execution;
  }

  /** The call of `e` ended: a wait of its still open ends too. */
  end(e: MemoryEntry): void {
    this.waits.end(e.execution.id, () => new ToolnexusError("CANCELLED", "The call ended before the answer came"));
    if (e.execution.inputRequests) backToRunning(e);
  }

  /** The store closes: every wait of this process ends (its call then ends, recorded as failed NOT_READY). */
  close(): void {
    this.waits.endAll(() => new ToolnexusError("NOT_READY", "The service is shutting down"));
  }
}
