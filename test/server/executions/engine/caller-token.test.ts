import { describe, expect, it } from "vitest";
import { createSealer } from "../../../../src/core/seal.js";
import { claimsOf, Policies } from "../../../../src/server/auth/policies.js";
import { openCallerToken, sealCallerToken } from "../../../../src/server/executions/engine/caller-token.js";

describe("a JWT caller's token sealed for its executions", () => {
  const sealer = createSealer("a-state-secret-of-enough-length-0123456789");
  const policies = new Policies([{ id: "all", tools: ["*"] }]);

  it("expires with the token: the caller carries the verified exp, and the seal lasts until then, not the fallback", () => {
    let t = Date.now();
    const clocked = createSealer("a-state-secret-of-enough-length-0123456789", () => t);
    const exp = Math.floor(t / 1000) + 60;
    const caller = policies.callerFor(claimsOf({ sub: "dana", exp }, "groups"), "token-a");
    expect(caller.bearerExp).toBe(exp);
    const sealed = sealCallerToken(clocked, "jwt:dana", "token-a", caller.bearerExp, 3_600_000);
    t += 50_000;
    expect(openCallerToken(clocked, "jwt:dana", sealed)).toBe("token-a");
    t += 20_000;
    expect(openCallerToken(clocked, "jwt:dana", sealed)).toBeUndefined();
  });

  it("lasts the fallback for a token without exp, and opens for its owner only", () => {
    const caller = policies.callerFor(claimsOf({ sub: "dana" }, "groups"), "token-c");
    expect(caller.bearerExp).toBeUndefined();
    const sealed = sealCallerToken(sealer, "jwt:dana", "token-c", caller.bearerExp, 60_000);
    expect(openCallerToken(sealer, "jwt:dana", sealed)).toBe("token-c");
    expect(openCallerToken(sealer, "jwt:erin", sealed)).toBeUndefined();
  });
});
