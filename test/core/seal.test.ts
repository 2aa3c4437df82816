import { describe, expect, it } from "vitest";
import { createSealer } from "../../src/core/seal.js";

const SECRET = "a-state-secret-of-at-least-32-characters";

describe("sealed state", () => {
  it("opens on another replica with the same secret", () => {
    const token = createSealer(SECRET).seal("input", { requestState: "abc", n: 1 }, 60_000);
    expect(token).not.toContain("abc");
    expect(createSealer(SECRET).open("input", token)).toEqual({ requestState: "abc", n: 1 });
  });

  it("refuses an altered, foreign, misused or expired token with INVALID_STATE", () => {
    const a = createSealer(SECRET);
    const token = a.seal("input", { x: 1 }, 60_000);
    const raw = Buffer.from(token, "base64url");
    raw.writeUInt8(raw.readUInt8(raw.length - 1) ^ 1, raw.length - 1);
    expect(() => a.open("input", raw.toString("base64url"))).toThrow(expect.objectContaining({ code: "INVALID_STATE" }));
    expect(() => createSealer(`${SECRET}-other`).open("input", token)).toThrow(expect.objectContaining({ code: "INVALID_STATE" }));
    expect(() => a.open("caller-token", token)).toThrow(expect.objectContaining({ code: "INVALID_STATE" }));
    expect(() => a.open("input", "not-a-token")).toThrow(expect.objectContaining({ code: "INVALID_STATE" }));
    let t = 0;
    const clocked = createSealer(SECRET, () => t);
    const short = clocked.seal("input", 1, 10);
    t = 11;
    expect(() => clocked.open("input", short)).toThrow(expect.objectContaining({ code: "INVALID_STATE" }));
  });

  it("without a secret, seals for this process only", () => {
    const a = createSealer(undefined);
    expect(a.shared).toBe(false);
    expect(a.open("p", a.seal("p", "v", 1000))).toBe("v");
    expect(() => createSealer(undefined).open("p", a.seal("p", "v", 1000))).toThrow(expect.objectContaining({ code: "INVALID_STATE" }));
  });
});
