// JSON text of the values a log line repeats on every call: the same tool names, callers and
// outcomes, quoted once. JSON.stringify of a line's fields scans and escapes each string anew
// on every call, and is a measurable share of a fast call's cost
// (bench/history/2026-12-06-execute-path.md).

// Enough for the names, callers and constants of a large catalog; past it, strings are quoted
// each time (the same text, only slower), so an endless stream of new ones holds no memory.
const MAX_KEPT = 4096;
const QUOTED = new Map<string, string>();

/** `JSON.stringify(text)`, kept for a string seen before. */
export function jsonString(text: string): string {
  let q = QUOTED.get(text);
  if (q === undefined) {
    q = JSON.stringify(text);
    if (QUOTED.size < MAX_KEPT) QUOTED.set(text, q);
  }
  return q;
}

/**
 * `JSON.stringify(value)` for a duration rounded to a tenth of a millisecond (as a call's line
 * has it), made of integers: a double's shortest text is a runtime call on every line, the
 * integers' an inline one. Any other value is written by JSON.stringify.
 */
export function jsonTenths(value: number): string {
  const tenths = Math.round(value * 10);
  // Up to ~3 years, far below where a tenth stops being exact in a double.
  if (!(tenths >= 0 && tenths <= 1e12) || tenths / 10 !== value) return JSON.stringify(value);
  const digit = tenths % 10;
  const whole = (tenths - digit) / 10;
  return digit === 0 ? `${whole}` : `${whole}.${digit}`;
}
