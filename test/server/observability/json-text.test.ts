import { describe, expect, it } from "vitest";
import { jsonString, jsonTenths } from "../../../src/server/observability/json-text.js";

describe("JSON text of log values", () => {
  it("writes a duration rounded to a tenth as JSON.stringify does, and any other number too", () => {
    const values = [-0, -0.1, -12.3, 0.04, 0.05, 1e-7, 1e12, 1e12 + 0.1, 1e20, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_VALUE];
    for (let tenths = 0; tenths < 200_000; tenths += 7) values.push(tenths / 10, Math.round(tenths * 1.37) / 10);
    for (let ms = 1; ms < 1e11; ms *= 1.9) values.push(Math.round(ms * 10) / 10, ms);
    for (const v of values) expect(jsonTenths(v), String(v)).toBe(JSON.stringify(v));
  });

  it("quotes strings as JSON.stringify does, the same again once kept, and past what it keeps", () => {
    const texts = ['we"ird\\name', "\u0001\u2028 ✓", "\ud800 lone", "", "echo"];
    for (let i = 0; i < 5000; i++) texts.push(`tool_${i}`);
    for (const round of [1, 2]) for (const t of texts) expect(jsonString(t), `${round}: ${t}`).toBe(JSON.stringify(t));
  });
});
