import { ToolnexusError } from "../../core/errors.js";

/** The abort signal of one call and how to run a tool under it. */
export interface CallSignal {
  signal: AbortSignal;
  /** Runs `fn`, settling as soon as the call is aborted (with the reason) even if `fn` ignores its signal. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Aborts the call with `reason` (shutdown, a disconnect, a cancel request). */
  abort(reason: ToolnexusError): void;
  /**
   * Stops the call's deadline until `wait` settles, and returns it: time spent waiting for
   * the caller's answer is the caller's (`inputTimeoutMs` bounds each wait), not the tool's.
   */
  pausedWhile<T>(wait: Promise<T>): Promise<T>;
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
 * execution's cancel) ∪ shutdown (docs/architecture.md, "Cancellation"). The reason is a
 * ToolnexusError saying which one fired. Shutdown reaches calls through {@link CallSignal.abort} from the in-flight registry,
 * so a call costs no listener on a shared signal.
 */
export function callSignal(timeoutMs: number): CallSignal {
  return new Call(timeoutMs);
}

const SETTLED: Promise<void> = Promise.resolve();

function fireTimeout(call: Call, timeoutMs: number): void {
  call.abort(new ToolnexusError("TOOL_TIMEOUT", `The tool did not finish within ${timeoutMs} ms`));
}

// A call of at least this timeout (the default is 60 s) is timed by the shared sweep, which
// looks every SWEEP_MS: it times out at most that late, 2 % of this. A shorter one gets a timer.
const SWEPT_FROM_MS = 5_000;
const SWEEP_MS = 100;

/**
 * The calls of long timeouts, and one interval that aborts those past their deadline while
 * there are any. A timer per call cost every call an insertion into Node's timer list and a
 * removal, where a call almost always ends long before its timeout
 * (bench/history/2026-12-06-execute-path.md); here it is linked and unlinked.
 */
class Sweep {
  private head?: Call;
  private interval?: NodeJS.Timeout;

  add(call: Call): void {
    call.sweepNext = this.head;
    if (this.head) this.head.sweepPrev = call;
    this.head = call;
    // Stopped by the first sweep that finds no call: a quiet server has no interval.
    this.interval ??= setInterval(() => this.sweep(), SWEEP_MS);
  }

  remove(call: Call): void {
    if (call.sweepPrev) call.sweepPrev.sweepNext = call.sweepNext;
    else if (this.head === call) this.head = call.sweepNext;
    else return; // removed already
    if (call.sweepNext) call.sweepNext.sweepPrev = call.sweepPrev;
    call.sweepPrev = call.sweepNext = undefined;
  }

  private sweep(): void {
    if (!this.head) {
      clearInterval(this.interval);
      this.interval = undefined;
      return;
    }
    const now = performance.now();
    // Collected first: an abort may end (and remove) calls of this list.
    const due: Call[] = [];
    for (let c: Call | undefined = this.head; c; c = c.sweepNext) if (c.overdue(now)) due.push(c);
    for (const c of due) c.timeOut();
  }
}

const SWEEP = new Sweep();

/**
 * A class rather than an object of closures: this runs once per call on the hot path, and
 * methods on a prototype allocate nothing per call where eight closures and their context did
 * (bench/history/2026-12-notebook.md, "The execute pipeline and its tail").
 */
class Call implements CallSignal {
  running = false;
  settled = SETTLED;
  // The AbortController is made on first read of `signal`: creating one is a visible share of a
  // fast call's cost, and many tools (pure functions) never look at their signal.
  private ac?: AbortController;
  private reason?: ToolnexusError;
  private rejectRun?: (reason: unknown) => void;
  private disposers?: (() => void)[];
  private timer?: NodeJS.Timeout;
  private readonly swept: boolean;
  /** The sweep's links, while the sweep times this call. */
  sweepPrev?: Call;
  sweepNext?: Call;
  // The deadline is `started + shift + timeoutMs`: `shift` is the time spent paused (waits for the caller).
  private readonly started = performance.now();
  private pauses = 0;
  private pausedAt = 0;
  private shift = 0;
  private disposed = false;

  constructor(private readonly timeoutMs: number) {
    this.swept = timeoutMs >= SWEPT_FROM_MS;
    if (this.swept) SWEEP.add(this);
    else this.timer = setTimeout(fireTimeout, timeoutMs, this, timeoutMs);
  }

  pausedWhile<T>(wait: Promise<T>): Promise<T> {
    if (this.reason || this.disposed) return wait;
    if (this.pauses++ === 0) {
      clearTimeout(this.timer);
      this.pausedAt = performance.now();
    }
    return wait.finally(() => this.resume());
  }

  private resume(): void {
    if (--this.pauses > 0 || this.disposed || this.reason) return;
    const now = performance.now();
    this.shift += now - this.pausedAt;
    if (this.swept) return; // the sweep reads the new deadline
    const left = Math.max(this.started + this.shift + this.timeoutMs - now, 0);
    this.timer = setTimeout(fireTimeout, left, this, this.timeoutMs);
  }

  /** For the sweep: running unpaused, and past its deadline at `now`. */
  overdue(now: number): boolean {
    return !this.reason && !this.disposed && this.pauses === 0 && now - this.started - this.shift >= this.timeoutMs;
  }

  /** For the sweep: aborts the call with TOOL_TIMEOUT. */
  timeOut(): void {
    fireTimeout(this, this.timeoutMs);
  }

  get signal(): AbortSignal {
    if (!this.ac) {
      this.ac = new AbortController();
      if (this.reason) this.ac.abort(this.reason);
    }
    return this.ac.signal;
  }

  abort(why: ToolnexusError): void {
    if (this.reason) return;
    this.reason = why;
    // An aborted call has no deadline left to watch, disposed or not.
    if (this.swept) SWEEP.remove(this);
    this.ac?.abort(why);
    const reject = this.rejectRun;
    this.rejectRun = undefined;
    reject?.(why);
  }

  onDispose(fn: () => void): void {
    (this.disposers ??= []).push(fn);
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.reason) return Promise.reject(this.reason);
    // One promise per call: it settles with the tool, or first with the abort reason.
    return new Promise<T>((resolve, reject) => {
      this.rejectRun = reject;
      this.running = true;
      let work: Promise<T>;
      try {
        work = fn();
      } catch (err) {
        this.finish();
        reject(err);
        return;
      }
      this.settled = work.then(
        (value) => {
          this.finish();
          // A tool that honoured the signal returns right after it fired: the abort still decides.
          if (this.reason) reject(this.reason);
          else resolve(value);
        },
        (err: unknown) => {
          this.finish();
          reject(this.reason ?? err);
        },
      );
    });
  }

  dispose(): void {
    this.disposed = true;
    if (this.swept) SWEEP.remove(this);
    else clearTimeout(this.timer);
    if (this.disposers) for (const fn of this.disposers) fn();
  }

  private finish(): void {
    this.running = false;
    this.rejectRun = undefined;
  }
}
