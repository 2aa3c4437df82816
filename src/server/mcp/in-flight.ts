import type { RequestId } from "@modelcontextprotocol/server";
import { ToolnexusError } from "../../core/errors.js";
import type { CallSignal } from "../calls/call-signal.js";

/**
 * The `tools/call` requests running on this replica, by caller and JSON-RPC id. Stateless
 * streamable HTTP delivers `notifications/cancelled` in a POST of its own, to a fresh SDK
 * server (maybe on another replica): it finds the call here. Matching on the caller too means
 * one key can never cancel another key's call.
 */
export class InFlightMcpCalls {
  private readonly calls = new Map<string, Set<CallSignal>>();

  /** Registers `call` until it is disposed. */
  add(callerId: string, id: RequestId, call: CallSignal): void {
    const key = keyOf(callerId, id);
    let set = this.calls.get(key);
    if (!set) this.calls.set(key, (set = new Set()));
    set.add(call);
    call.onDispose(() => {
      set.delete(call);
      if (set.size === 0 && this.calls.get(key) === set) this.calls.delete(key);
    });
  }

  /**
   * Aborts the caller's call(s) with that id; false when none runs here. Two clients of one
   * key that reuse an id concurrently cannot be told apart without a session: both stop.
   */
  cancel(callerId: string, id: RequestId, reason?: string): boolean {
    const set = this.calls.get(keyOf(callerId, id));
    if (!set) return false;
    const why = new ToolnexusError("CANCELLED", `The client cancelled the call${reason ? `: ${reason.slice(0, 200)}` : ""}`);
    for (const call of set) call.abort(why);
    return true;
  }

  /** How many calls are registered (for tests and status). */
  get size(): number {
    return this.calls.size;
  }
}

// A number id 1 and a string id "1" are different requests.
function keyOf(callerId: string, id: RequestId): string {
  return `${callerId}\u0000${typeof id}:${id}`;
}
