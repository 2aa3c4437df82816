// Shorter values are too likely to be ordinary words to be worth scrubbing (as in the logger).
const MIN_SECRET_LENGTH = 6;

/**
 * Replaces every secret in `text` with `[redacted]`. Error texts of MCP connections can echo
 * a URL, a header or a child's environment; they reach `GET /status`, which the log scrubber
 * does not cover, so the source scrubs them itself.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...new Set(secrets)].filter((v) => v.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length)) {
    if (out.includes(s)) out = out.split(s).join("[redacted]");
  }
  return out;
}
