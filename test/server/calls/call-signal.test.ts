import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ToolnexusError } from "../../../src/core/errors.js";
import { callSignal } from "../../../src/server/calls/call-signal.js";

// Fake clocks: the sweep's interval and the deadline's performance.now() move only when told.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "performance"] });
});
// Every test disposes its calls: the next sweep finds none and stops its interval, which
// would otherwise outlive this test's fake clock.
afterEach(() => {
  vi.advanceTimersByTime(100);
  expect(vi.getTimerCount()).toBe(0);
  vi.useRealTimers();
});

describe("the timeout of a long call (timed by the shared sweep)", () => {
  it("fires within one sweep past the deadline, not before", () => {
    const call = callSignal(10_000);
    vi.advanceTimersByTime(9_950);
    expect(call.signal.aborted).toBe(false);
    vi.advanceTimersByTime(150);
    expect(call.signal.reason).toMatchObject({ code: "TOOL_TIMEOUT", message: "The tool did not finish within 10000 ms" });
    call.dispose();
  });

  it("does not fire for a call disposed before its deadline, and leaves no interval once none is left", () => {
    const ended = callSignal(10_000);
    const other = callSignal(20_000);
    vi.advanceTimersByTime(1_000);
    ended.dispose();
    vi.advanceTimersByTime(10_000);
    expect(ended.signal.aborted).toBe(false);
    expect(other.signal.aborted).toBe(false);
    other.dispose();
    vi.advanceTimersByTime(200);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("pauses while the call waits for its caller, and fires once resumed with what was left", async () => {
    const call = callSignal(10_000);
    vi.advanceTimersByTime(4_000);
    let answer!: () => void;
    const waited = call.pausedWhile(new Promise<void>((r) => (answer = r)));
    vi.advanceTimersByTime(60_000);
    expect(call.signal.aborted).toBe(false);
    answer();
    await waited;
    vi.advanceTimersByTime(5_900);
    expect(call.signal.aborted).toBe(false);
    vi.advanceTimersByTime(200);
    expect(call.signal.reason).toMatchObject({ code: "TOOL_TIMEOUT" });
    call.dispose();
  });

  it("stops watching a call once it is aborted, disposed or not", () => {
    const timedOut = callSignal(5_000);
    const cancelled = callSignal(60_000);
    cancelled.abort(new ToolnexusError("CANCELLED", "cancelled"));
    vi.advanceTimersByTime(5_100);
    expect(timedOut.signal.reason).toMatchObject({ code: "TOOL_TIMEOUT" });
    // Neither is disposed: the sweep finds none left and stops.
    vi.advanceTimersByTime(100);
    expect(vi.getTimerCount()).toBe(0);
    expect(cancelled.signal.reason).toMatchObject({ code: "CANCELLED" });
  });

  it("times each of many calls by its own deadline", () => {
    const calls = [5_000, 7_000, 6_000, 30_000].map((ms) => callSignal(ms));
    vi.advanceTimersByTime(6_100);
    expect(calls.map((c) => c.signal.aborted)).toEqual([true, false, true, false]);
    calls[1]!.dispose();
    vi.advanceTimersByTime(30_000);
    expect(calls.map((c) => c.signal.aborted)).toEqual([true, false, true, true]);
    for (const c of calls) c.dispose();
  });
});

describe("the timeout of a short call (a timer of its own)", () => {
  it("fires at its deadline", () => {
    const call = callSignal(200);
    vi.advanceTimersByTime(199);
    expect(call.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(call.signal.reason).toMatchObject({ code: "TOOL_TIMEOUT" });
    call.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });
});
