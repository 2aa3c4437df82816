import { describe, expect, it } from "vitest";
import { nextRequestId, requestIdSource } from "../../../src/server/http/request-id.js";

// The UUID layout, version 8, variant 10xx.
const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("request ids", () => {
  it("are UUID-shaped and never repeat", () => {
    const ids = Array.from({ length: 10_000 }, () => nextRequestId());
    for (const id of ids) expect(id).toMatch(UUID_V8);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("differ between two sources (processes) from the first id on", () => {
    const [a, b] = [requestIdSource(), requestIdSource()];
    expect(a().slice(0, 28)).not.toBe(b().slice(0, 28));
  });

  it("draw a new prefix when the counter runs out, and stay UUID-shaped", () => {
    const next = requestIdSource(0x3fff_fffe);
    const [x, y, z] = [next(), next(), next()];
    expect(x.slice(0, 28)).toBe(y.slice(0, 28));
    expect(z.slice(0, 28)).not.toBe(y.slice(0, 28));
    expect(y.slice(28)).toBe("3fffffff");
    expect(z.slice(28)).toBe("10000000");
    for (const id of [x, y, z]) expect(id).toMatch(UUID_V8);
  });
});
