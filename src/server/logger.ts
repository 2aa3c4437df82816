import { pino, type DestinationStream, type Logger, type LoggerOptions } from "pino";

// Shorter values are too likely to be ordinary words or numbers to be worth scrubbing.
const MIN_SECRET_LENGTH = 6;

/** Header paths pino redacts structurally, whatever their value. */
export const REDACT_PATHS = [
  "req.headers.authorization",
  'req.headers["x-api-key"]',
  "headers.authorization",
  'headers["x-api-key"]',
];

/**
 * A pino logger that never writes a secret: auth headers are redacted by path, and every
 * value expanded from the environment (`${VAR}` in the config) is replaced in the finished
 * line, wherever it hides (an error message, a URL, a header dump).
 */
export function redactingLogger(secrets: readonly string[], opts: LoggerOptions = {}, out: DestinationStream = pino.destination(1)): Logger {
  const needles = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH).flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]))]
    .sort((a, b) => b.length - a.length);
  const dest: DestinationStream = needles.length === 0 ? out : { write: (line: string) => out.write(scrub(line, needles)) };
  return pino({ redact: { paths: REDACT_PATHS, censor: "[redacted]" }, ...opts }, dest);
}

/** Replaces every occurrence of each needle in `text` with `[redacted]`. */
export function scrub(text: string, needles: readonly string[]): string {
  let out = text;
  for (const n of needles) if (out.includes(n)) out = out.split(n).join("[redacted]");
  return out;
}
