import { describe, expect, it } from "vitest";
import { callSignal } from "../../../src/server/calls/call-signal.js";
import { abortOnDisconnect } from "../../../src/server/calls/disconnect.js";
import { afterClientLeft } from "../../helpers/client-left.js";

describe("abortOnDisconnect", () => {
  it("aborts at once a call whose client left while it was being checked", async () => {
    const reason = await afterClientLeft((reply) => {
      const call = callSignal(5_000);
      abortOnDisconnect(reply, call);
      const aborted = call.signal.aborted
        ? Promise.resolve(call.signal.reason)
        : new Promise((r) => call.signal.addEventListener("abort", () => r(call.signal.reason)));
      return aborted.finally(() => call.dispose());
    });
    expect(reason).toMatchObject({ code: "CLIENT_CLOSED" });
  });
});
