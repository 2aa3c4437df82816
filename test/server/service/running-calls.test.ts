import { describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../../src/core/types.js";
import { createToolkit, toLoadedConfig } from "../../../src/create-toolkit.js";
import { Authenticator } from "../../../src/server/auth/index.js";
import { RunningCalls } from "../../../src/server/service/running-calls.js";
import { ServiceState } from "../../../src/server/service/service-state.js";

describe("RunningCalls", () => {
  it("keeps insertion order, removes any entry once, and counts what it holds", () => {
    const calls = new RunningCalls<string>();
    const [a, b, c] = ["a", "b", "c"].map((x) => calls.add(x));
    expect(calls.items()).toEqual(["a", "b", "c"]);
    calls.delete(b!);
    calls.delete(b!);
    expect([calls.items(), calls.size]).toEqual([["a", "c"], 2]);
    calls.delete(a!);
    expect(calls.items()).toEqual(["c"]);
    const d = calls.add("d");
    calls.delete(c!);
    calls.delete(d);
    expect([calls.items(), calls.size]).toEqual([[], 0]);
    calls.add("e");
    expect(calls.items()).toEqual(["e"]);
  });
});

describe("ServiceState's bookkeeping of calls and toolkits", () => {
  async function state() {
    const loaded = await toLoadedConfig({});
    const s = new ServiceState(loaded, await Authenticator.create(loaded.config, silentLogger));
    const first = await createToolkit(loaded);
    s.setToolkit(first);
    return { s, loaded, first };
  }

  it("closes a replaced toolkit at once when its calls have all ended, else after the last one", async () => {
    const { s, loaded, first } = await state();
    const closeFirst = vi.spyOn(first, "close");
    // A call came and went: the toolkit in service keeps its (zero) count.
    s.release(s.acquire());
    const second = await createToolkit(loaded);
    s.setToolkit(second);
    expect(closeFirst).toHaveBeenCalledTimes(1);
    expect(s.openToolkits()).toEqual([second]);

    const closeSecond = vi.spyOn(second, "close");
    const held = s.acquire();
    s.setToolkit(await createToolkit(loaded));
    expect(closeSecond).not.toHaveBeenCalled();
    expect(s.openToolkits()).toContain(second);
    s.release(held);
    expect(closeSecond).toHaveBeenCalledTimes(1);
    expect(s.openToolkits()).not.toContain(second);
  });

  it("counts tracked calls and aborts those still running at the end of the grace period", async () => {
    const { s } = await state();
    const aborted: string[] = [];
    const call = (name: string) => ({ abort: () => aborted.push(name) });
    const one = s.track(call("one"));
    s.track(call("two"));
    expect(s.inFlight).toBe(2);
    s.untrack(one);
    expect(s.inFlight).toBe(1);
    s.abortInFlight();
    expect(aborted).toEqual(["two"]);
    s.track(call("late"));
    expect(aborted).toEqual(["two", "late"]);
  });
});
