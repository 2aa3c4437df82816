import type { ServerResponse } from "node:http";
import { onResponseGone } from "../calls/disconnect.js";
import { isTerminal, type ExecutionT } from "./schemas.js";
import type { ExecutionStore } from "./engine/store.js";

/** The longest `GET /executions/{id}` holds its answer for `Prefer: wait`, in seconds. */
const MAX_WAIT_S = 30;

/** The seconds a `Prefer` header (RFC 7240) asks to wait (`wait=N`), capped at {@link MAX_WAIT_S}; 0 when it asks none. */
export function preferredWait(prefer: string | undefined): number {
  const m = prefer === undefined ? null : /(?:^|[,;])\s*wait\s*=\s*"?(\d{1,9})"?\s*(?:[,;]|$)/i.exec(prefer);
  return m ? Math.min(Number(m[1]), MAX_WAIT_S) : 0;
}

/** A state a waiting GET answers at once: the execution ended, or waits on the caller's answer. */
export const settled = (e: ExecutionT) => isTerminal(e.status) || e.status === "input_required";

/** Aborts when the response closes before it ended (the client left, perhaps already) or when `closing` aborts (the service closes). */
export function responseGone(res: ServerResponse, closing: AbortSignal): AbortSignal {
  const gone = new AbortController();
  // Not disposed: the listener goes with this request's response.
  onResponseGone(res, () => gone.abort());
  return AbortSignal.any([gone.signal, closing]);
}

/**
 * Execution `id` of `owner` once it has ended or asks for input, or as it is when `ms` ran out
 * or `cut` aborted (the client left, the service closes); undefined when unknown to this owner.
 * A poller that asks to wait is answered once per change instead of once per round trip: it
 * follows the execution's events (the store's watch: no reads while nothing happens) and reads
 * the execution again only when an event other than progress arrives.
 */
export async function awaitExecution(
  store: ExecutionStore,
  owner: string,
  id: string,
  ms: number,
  cut: AbortSignal,
): Promise<ExecutionT | undefined> {
  let changed = false;
  let wake: (() => void) | undefined;
  const watch = await store.watch(owner, id, 0, (e) => {
    if (e.event === "progress") return;
    changed = true;
    wake?.();
  });
  if (!watch) return undefined;
  let execution: ExecutionT | undefined = watch.execution;
  const deadline = Date.now() + ms;
  try {
    for (;;) {
      // Events delivered with the backlog set `changed` too: one read settles what they mean now.
      if (changed) {
        changed = false;
        execution = await store.get(owner, id);
      }
      if (!execution || settled(execution) || cut.aborted || Date.now() >= deadline) return execution;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          cut.removeEventListener("abort", done);
          wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, deadline - Date.now());
        cut.addEventListener("abort", done);
        wake = done;
      });
    }
  } finally {
    watch.stop();
  }
}
