import { describe, expect, it } from "vitest";
import { openSse } from "../../../src/server/calls/sse.js";
import { afterClientLeft } from "../../helpers/client-left.js";

describe("openSse", () => {
  it("reports a client that left before the stream opened at once", async () => {
    const closed = await afterClientLeft((reply) => {
      const sse = openSse(reply, 100);
      return new Promise<boolean>((r) => {
        sse.onClientClose(() => r(sse.closed));
        setTimeout(() => r(false), 1000).unref();
      });
    });
    expect(closed).toBe(true);
  });
});
