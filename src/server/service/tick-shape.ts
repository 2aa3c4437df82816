// Keeps one of Node's own `process.nextTick` records alive for the life of the process.
//
// Each `process.nextTick` builds a small record whose hidden class (V8 "map") is reached by
// property transitions that V8 holds only weakly. When a full garbage collection runs at a
// moment no record is alive — at start-up, while the bundle loads, or on a server idle long
// enough — those maps are collected, the next record gets fresh ones, and the optimised
// `nextTick` takes its generic slow path for good: about 0.5 µs more per call, several calls per
// HTTP request (socket writes, stream ends), a few percent of the gateway's CPU per call, in some
// runs and not others (bench/history/2026-12-06-execute-path.md). One record kept alive keeps
// its maps alive, so every later record shares them and the fast path stays.
import { executionAsyncResource } from "node:async_hooks";

let pinned: Promise<object> | undefined;

/**
 * Pins the shape of Node's nextTick records: call as early as the process can (the CLI does,
 * before loading the server; buildServer does too, for embedders). Idempotent; resolves to the
 * record, taken on the next tick and kept for the life of the process.
 */
export function pinTickShape(): Promise<object> {
  // Inside a nextTick callback the execution resource is that callback's own record.
  pinned ??= new Promise((resolve) => process.nextTick(() => resolve(executionAsyncResource())));
  return pinned;
}
