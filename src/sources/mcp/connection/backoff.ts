/** Exponential backoff settings for reconnecting a server. */
export interface BackoffOptions {
  /** First delay in ms. */
  baseMs: number;
  /** No delay is longer than this. */
  maxMs: number;
}

/** Reconnects start fast (a crashed stdio server is usually back in well under a second) and cap at 30 s. */
export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 100, maxMs: 30_000 };

/**
 * The delay before reconnect attempt `attempt` (0-based): base·2^attempt, capped, with "equal
 * jitter" (between half and all of it) so many servers dropped at once do not retry in step.
 */
export function backoffDelay(attempt: number, opts: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const ceiling = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Resolves after `ms`, or at once when `signal` aborts. Never rejects. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Calls `attempt` after each backoff delay until it succeeds or `signal` aborts. A failed
 * attempt is reported to `onFailure`; it never throws.
 */
export async function retryWithBackoff(
  attempt: () => Promise<void>,
  signal: AbortSignal,
  opts: BackoffOptions,
  onFailure: (err: unknown, n: number) => void,
): Promise<boolean> {
  for (let n = 0; !signal.aborted; n++) {
    await sleep(backoffDelay(n, opts), signal);
    if (signal.aborted) return false;
    try {
      await attempt();
      return true;
    } catch (err) {
      if (!signal.aborted) onFailure(err, n + 1);
    }
  }
  return false;
}
