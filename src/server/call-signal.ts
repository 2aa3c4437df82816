import { ToolnexusError } from "../core/errors.js";

/** The abort signal of one call and how to run a tool under it. */
export interface CallSignal {
  signal: AbortSignal;
  /** Runs `fn`, settling as soon as the call is aborted (with the reason) even if `fn` ignores its signal. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Aborts the call with `reason` (shutdown, a disconnect, a cancel request). */
  abort(reason: ToolnexusError): void;
  /** Runs `fn` when the call is disposed (a transport unhooks its disconnect listener here). */
  onDispose(fn: () => void): void;
  /** True while the tool's own work is unsettled — also after `run` gave up on it at an abort. */
  readonly running: boolean;
  /** Settles when the tool's own work does. */
  readonly settled: Promise<void>;
  dispose(): void;
}

/**
 * One AbortSignal per call = timeout ∪ whatever the transport binds (client disconnect, an
 * execution's cancel) ∪ shutdown (DESIGN §5). The reason is a ToolnexusError saying which one
 * fired. Shutdown reaches calls through {@link CallSignal.abort} from the in-flight registry,
 * so a call costs no listener on a shared signal.
 */
export function callSignal(timeoutMs: number): CallSignal {
  // The AbortController is made on first read of `signal`: creating one is a visible share of a
  // fast call's cost, and many tools (pure functions) never look at their signal.
  let ac: AbortController | undefined;
  let reason: ToolnexusError | undefined;
  let rejectRun: ((reason: unknown) => void) | undefined;
  let running = false;
  let settled: Promise<void> = Promise.resolve();
  const abort = (why: ToolnexusError) => {
    if (reason) return;
    reason = why;
    ac?.abort(why);
    rejectRun?.(why);
  };
  let disposers: (() => void)[] | undefined;
  const timer = setTimeout(() => abort(new ToolnexusError("TOOL_TIMEOUT", `The tool did not finish within ${timeoutMs} ms`)), timeoutMs);

  return {
    get signal() {
      if (!ac) {
        ac = new AbortController();
        if (reason) ac.abort(reason);
      }
      return ac.signal;
    },
    abort,
    onDispose(fn) {
      (disposers ??= []).push(fn);
    },
    get running() {
      return running;
    },
    get settled() {
      return settled;
    },
    run(fn) {
      // One promise per call: it settles with the tool, or first with the abort reason.
      return new Promise((resolve, reject) => {
        if (reason) return reject(reason);
        rejectRun = reject;
        running = true;
        let work: Promise<unknown>;
        try {
          work = fn();
        } catch (err) {
          running = false;
          return reject(err);
        }
        settled = work.then(
          (value) => {
            running = false;
            // A tool that honoured the signal returns right after it fired: the abort still decides.
            if (reason) reject(reason);
            else resolve(value as never);
          },
          (err: unknown) => {
            running = false;
            reject(reason ?? err);
          },
        );
      }).finally(() => {
        rejectRun = undefined;
      }) as never;
    },
    dispose() {
      clearTimeout(timer);
      if (disposers) for (const fn of disposers) fn();
    },
  };
}
