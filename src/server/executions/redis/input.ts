import type { RedisClient } from "../../redis/connect-redis.js";
import { ToolnexusError } from "../../../core/errors.js";
import type { InputRequests, InputResponses } from "../../../core/input/requests.js";
import type { RedisChannels } from "./channels.js";
import { iso } from "../schemas.js";
import { store, toExecution, type ExecutionKeys } from "./records.js";
import type { ExecutionCommands } from "./scripts.js";
import type { ExecutionT } from "../schemas.js";
import { checkResponses, InputWaits, notWaiting, stillOpen } from "../engine/input-wait.js";

/**
 * The input path of executions on Redis: a call of this replica asks (the record turns
 * `input_required`, its followers see the requests) and waits here; its owner answers on any
 * replica (checked against the record, taken atomically by a script), and the answer reaches
 * the replica holding the call over a broadcast channel.
 */
export class RedisInput {
  /** This replica's held calls waiting for an answer. */
  private readonly waits = new InputWaits();

  constructor(
    private readonly redis: RedisClient & ExecutionCommands,
    private readonly key: ExecutionKeys,
    channels: RedisChannels,
    /** `server.inputTimeoutMs`, read per wait. */
    private readonly inputTimeoutMs: () => number,
  ) {
    // Answers to held calls travel like cancels: broadcast, and the replica holding the call takes it.
    channels.always(key.inputChannel, (message) => {
      const { id, responses } = JSON.parse(message) as { id: string; responses: InputResponses };
      this.waits.answer(id, responses);
    });
  }

  /** Execution `id` asks its caller `requests`; resolves with the answer (INPUT_TIMEOUT, or `signal`'s reason). */
  async ask(id: string, requests: InputRequests, signal: AbortSignal, onAsked?: () => void): Promise<InputResponses> {
    const json = JSON.stringify(requests);
    // Waiting before the record says so: an answer published at once is not missed.
    const answer = this.waits.wait(id, this.inputTimeoutMs(), signal);
    try {
      if ((await store(this.redis.tnxAsk(this.key.record(id), this.key.events(id), iso(Date.now()), json, this.key.channel(id)))) !== 1) {
        throw notWaiting("over");
      }
    } catch (err) {
      this.waits.answer(id, {});
      void answer.catch(() => undefined);
      throw err;
    }
    onAsked?.();
    return answer;
  }

  /**
   * `owner`'s answer to execution `id` (undefined: no such execution of theirs). With `partial`,
   * some of the open requests may be answered; the execution waits on the others.
   */
  async answer(owner: string, id: string, responses: InputResponses, partial: boolean): Promise<ExecutionT | undefined> {
    const rec = await store(this.redis.hgetall(this.key.record(id)));
    const execution = toExecution(rec, owner);
    if (!execution) return undefined;
    if (execution.status !== "input_required" || !execution.inputRequests) throw stateError(execution);
    checkResponses(execution.inputRequests, responses, partial);
    if (Object.keys(responses).length === 0) return execution;
    const answered = { ...(rec.answered ? (JSON.parse(rec.answered) as InputResponses) : {}), ...responses };
    const open = stillOpen(execution.inputRequests, answered);
    const now = iso(Date.now());
    // The record's inputs are compared in the script: of two answers racing, one is taken.
    const verdict = await store(
      Object.keys(open).length > 0
        ? this.redis.tnxPartial(this.key.record(id), now, rec.inputs ?? "", JSON.stringify(open), JSON.stringify(answered))
        : this.redis.tnxAnswer(this.key.record(id), now, rec.inputs ?? ""),
    );
    if (verdict !== "ok") throw notWaiting(verdict);
    if (Object.keys(open).length === 0) await store(this.redis.publish(this.key.inputChannel, JSON.stringify({ id, responses: answered })));
    return toExecution(await store(this.redis.hgetall(this.key.record(id))), owner);
  }

  /** The call of execution `id` ended: a wait of its still open ends too. */
  end(id: string): void {
    this.waits.end(id, () => new ToolnexusError("CANCELLED", "The call ended before the answer came"));
  }

  /** The store closes: every wait of this process ends (its call then ends, recorded as failed NOT_READY). */
  close(): void {
    this.waits.endAll(() => new ToolnexusError("NOT_READY", "The service is shutting down"));
  }
}

/** Why an execution that is not `input_required` takes no answer: its wait timed out, or it waits on nothing. */
function stateError(e: ExecutionT): ToolnexusError {
  if (e.error?.code === "INPUT_TIMEOUT") return new ToolnexusError("INPUT_TIMEOUT", "The input request has expired");
  return notWaiting(e.status);
}
