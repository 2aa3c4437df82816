import { ToolnexusError } from "../../../core/errors.js";
import type { InputRequests, InputResponses } from "../../../core/input/requests.js";
import { checkInputResponses } from "../../../core/input/responses.js";

interface Wait {
  resolve(responses: InputResponses): void;
  reject(err: unknown): void;
}

/**
 * The held calls of this process waiting for their caller's answer, by execution id. Each
 * wait ends with the answer, INPUT_TIMEOUT after `timeoutMs`, or the abort reason of
 * `signal` (a cancel): never later, so a question nobody answers holds nothing forever.
 */
export class InputWaits {
  private readonly waits = new Map<string, Wait>();

  /** Waits for the answer to execution `id`'s requests. */
  wait(id: string, timeoutMs: number, signal: AbortSignal): Promise<InputResponses> {
    return new Promise<InputResponses>((resolve, reject) => {
      const end = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.waits.delete(id);
      };
      const onAbort = () => {
        end();
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        end();
        reject(new ToolnexusError("INPUT_TIMEOUT", `No answer to the input request within ${timeoutMs} ms`));
      }, timeoutMs);
      // A wait must not keep the process alive: its call ends it (see end) or shutdown does.
      timer.unref();
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      this.waits.set(id, {
        resolve: (r) => {
          end();
          resolve(r);
        },
        reject: (err) => {
          end();
          reject(err);
        },
      });
    });
  }

  /**
   * Ends execution `id`'s wait, if one is left (its call ended first: a deadline, an upstream that
   * gave up), so the question's handler settles instead of waiting out `timeoutMs`. `reason`
   * is made only then: every execution ends here, and most never waited.
   */
  end(id: string, reason: () => unknown): void {
    this.waits.get(id)?.reject(reason());
  }

  /** Ends every wait of this process with `reason` (the store closes: nobody is left to answer here). */
  endAll(reason: () => unknown): void {
    for (const w of [...this.waits.values()]) w.reject(reason());
  }

  /** Hands the answer to execution `id`'s wait; false when no wait of this process has that id. */
  answer(id: string, responses: InputResponses): boolean {
    const w = this.waits.get(id);
    w?.resolve(responses);
    return w !== undefined;
  }
}

/**
 * INVALID_INPUT_RESPONSES (422) unless `responses` answers exactly the requests asked (with
 * `partial`, some of them), each with a result that fits its request (an accepted form's
 * content its schema).
 */
export function checkResponses(requests: Record<string, unknown>, responses: InputResponses, partial = false): void {
  checkInputResponses(requests as InputRequests, responses, partial);
}

/** The requests of `requests` that `answered` leaves open. */
export function stillOpen<T>(requests: Record<string, T>, answered: InputResponses): Record<string, T> {
  return Object.fromEntries(Object.entries(requests).filter(([k]) => !Object.hasOwn(answered, k)));
}

/** INVALID_REQUEST: the execution waits on no input (not yet, or no more). */
export function notWaiting(status: string): ToolnexusError {
  return new ToolnexusError("EXECUTION_NOT_WAITING", `The execution is ${status}, not waiting for input`);
}
