/**
 * Polls `probe` until it returns something other than undefined or false, and resolves with
 * it; rejects after `timeoutMs`. For conditions reached by another process or socket.
 */
export async function eventually<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 5_000, everyMs = 10 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
