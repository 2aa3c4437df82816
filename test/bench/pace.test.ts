import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

// bench/lib.mjs's open-loop driver: the table's open-loop column and `ab.mjs` with BENCH_RATE
// rest on it starting calls without waiting for answers, never past its in-flight bound.
type Pace = (call: () => Promise<unknown>, rate: number, seconds: number, maxInFlight?: number) => Promise<{ n: number; skipped: number }>;
const { pace } = (await import(pathToFileURL(path.resolve("bench/lib.mjs")).href)) as { pace: Pace };

describe("bench pace()", () => {
  it("starts calls without waiting for answers, never more than maxInFlight at once, and counts the rest as skipped", async () => {
    const held: Array<() => void> = [];
    let open = false;
    let calls = 0;
    let inFlight = 0;
    let most = 0;
    const call = () =>
      new Promise<void>((resolve) => {
        calls++;
        most = Math.max(most, ++inFlight);
        const answer = () => {
          inFlight--;
          resolve();
        };
        if (open) answer();
        else held.push(answer);
      });
    // Nothing answers until the 50 ms window is over, so starts past the fifth are skipped; a
    // start due at the window's end that comes after the release is answered at once.
    const release = setTimeout(() => {
      open = true;
      held.splice(0).forEach((answer) => answer());
    }, 60);
    const r = await pace(call, 10_000, 0.05, 5);
    clearTimeout(release);
    expect(most).toBe(5);
    expect(r.n).toBe(calls);
    expect(r.skipped).toBeGreaterThan(0);
    expect(inFlight).toBe(0);
  });

  it("waits for the last answers and rethrows a failed call", async () => {
    let answered = 0;
    const ok = () => new Promise<void>((resolve) => setTimeout(() => (answered++, resolve()), 20));
    const r = await pace(ok, 200, 0.05);
    expect(answered).toBe(r.n);
    expect(r.skipped).toBe(0);
    await expect(pace(() => Promise.reject(new Error("HTTP 500")), 200, 0.02)).rejects.toThrow("HTTP 500");
  });
});
