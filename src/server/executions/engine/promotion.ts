import type { Promotion } from "../../calls/promotion.js";
import { failedOutcome } from "./runner.js";
import type { ExecutionStore } from "./store.js";

/**
 * Promotion of held synchronous calls into `store`: the call stays where it runs, its
 * execution (owned by the same caller) is what the caller polls, streams and answers.
 * `timeoutMs` bounds the execution's expiry while it is active (the call's own deadline still ends it).
 */
export function storePromotion(store: ExecutionStore, timeoutMs: () => number, scrub: (s: string) => string): Promotion {
  return {
    async adopt(call) {
      const adopted = await store.adopt({ ...call, timeoutMs: timeoutMs() });
      return {
        execution: adopted.execution,
        signal: adopted.hooks.signal,
        onProgress: (p) => adopted.hooks.onProgress(p),
        ask: (requests, onAsked) => adopted.hooks.onInputRequest(requests, onAsked),
        settle: (outcome) =>
          void adopted.finish(
            "result" in outcome ? { status: "succeeded", result: outcome.result } : failedOutcome(outcome.error, call.requestId, scrub),
          ),
      };
    },
  };
}
