import type { FastifyBaseLogger } from "fastify";
import { pino, type DestinationStream, type Logger, type LoggerOptions } from "pino";
import type { ToolResult } from "../../core/types.js";
import { scrubDeep } from "./scrub-deep.js";

// Shorter values are too likely to be ordinary words or numbers to be worth scrubbing.
const MIN_SECRET_LENGTH = 6;

/** Header paths pino redacts structurally, whatever their value. */
const REDACT_PATHS = ["req.headers.authorization", 'req.headers["x-api-key"]', "headers.authorization", 'headers["x-api-key"]'];

/** Replaces known secret values in finished log lines. The set can change on reload. */
export class SecretScrubber {
  private needles: string[] = [];

  constructor(secrets: readonly string[] = []) {
    this.set(secrets);
  }

  /** Replaces the secret set (a reload may expand new values). */
  set(secrets: readonly string[]): void {
    // A secret may sit in a line JSON-escaped; longest first so overlapping values go whole.
    this.needles = [
      ...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH).flatMap((s) => [s, JSON.stringify(s).slice(1, -1)])),
    ].sort((a, b) => b.length - a.length);
  }

  /**
   * A tool result with every secret replaced. The output string is scrubbed as is (no JSON
   * round trip of a possibly large text); only metadata goes through JSON. Free when no
   * secret is known.
   */
  scrubResult(result: ToolResult): ToolResult {
    if (this.needles.length === 0) return result;
    const output = this.scrub(result.output);
    const metadata = result.metadata && scrubDeep(result.metadata, (text) => this.scrub(text));
    return { ...result, output, ...(metadata ? { metadata } : {}) };
  }

  /** `text` with every secret replaced by `[redacted]`. */
  scrub(text: string): string {
    let out = text;
    for (const n of this.needles) if (out.includes(n)) out = out.split(n).join("[redacted]");
    return out;
  }
}

// Log lines wait at most this long (or until LOG_BATCH_CHARS are pending) before they are written.
const LOG_FLUSH_MS = 100;
const LOG_BATCH_CHARS = 4096;

let stdout: LineBatch | undefined;

/**
 * The default log destination: stdout, written in batches; one per process, so several servers
 * in one process share one batch (and one flush timer). pino's default is a write(2) per line,
 * and with the per-call line on (logLevel info) that syscall was ~9 % of the server's time in a
 * CPU profile (bench/history/2026-12-notebook.md, "The execute pipeline and its tail"); a batch
 * is one write for ~16 lines. Every line is written, in order, at most LOG_FLUSH_MS late, and
 * what is pending is written at exit.
 *
 * The batches are written synchronously: an asynchronous write still in flight at exit could
 * not be waited for, and the exit's synchronous flush wrote the lines after it first (or alone,
 * when the process ended before the in-flight write ran).
 */
export function stdoutDestination(): DestinationStream {
  if (!stdout) {
    // Buffer mode: SonicBoom's default string mode appends each write to one growing string
    // and takes its byte length each time, copying the whole pending text per write.
    const sonic = pino.destination({ dest: 1, sync: true, contentMode: "buffer" });
    // The typings know only string writes; buffer mode takes Buffers.
    const writeBuffer = sonic.write.bind(sonic) as unknown as (data: Buffer) => boolean;
    stdout = new LineBatch(writeBuffer, () => sonic.flushSync());
  }
  return stdout;
}

/**
 * Lines joined into one text and handed on as one Buffer per batch: SonicBoom's buffer mode
 * took a Buffer per line and kept its own count per write. In process, a line with its write
 * cost ~2.4-2.5 us of CPU that way and ~2.2-2.4 us this way (bench/info-line.mjs stdout).
 */
class LineBatch implements DestinationStream {
  private pending = "";

  constructor(
    private readonly out: (data: Buffer) => boolean,
    private readonly flushSync: () => void,
  ) {
    setInterval(() => this.flush(), LOG_FLUSH_MS).unref();
    // Whatever ends the process, what is pending reaches stdout (SonicBoom's own exit hook may
    // have run before this one: write synchronously here).
    process.on("exit", () => {
      try {
        this.flush();
        this.flushSync();
      } catch {
        // stdout is gone: nothing can be written any more.
      }
    });
  }

  write(line: string): void {
    this.pending += line;
    if (this.pending.length >= LOG_BATCH_CHARS) this.flush();
  }

  /** Hands the pending lines on. */
  flush(): void {
    if (this.pending === "") return;
    const text = this.pending;
    this.pending = "";
    this.out(Buffer.from(text));
  }
}

/**
 * A pino logger that never writes a secret: auth headers are redacted by path, and every
 * value expanded from the environment (`${VAR}` in the config) is replaced in the finished
 * line, wherever it hides (an error message, a URL, a header dump).
 */
export function redactingLogger(scrubber: SecretScrubber, opts: LoggerOptions = {}, out: DestinationStream = stdoutDestination()): Logger {
  const dest: DestinationStream = { write: (line: string) => out.write(scrubber.scrub(line)) };
  return pino({ redact: { paths: REDACT_PATHS, censor: "[redacted]" }, ...opts }, dest);
}

/** The service's logger: silent, the one given, or pino at `level` with secrets redacted and scrubbed. */
export function serviceLogger(
  given: FastifyBaseLogger | LoggerOptions | false | undefined,
  level: string,
  scrubber: SecretScrubber,
  destination?: DestinationStream,
): FastifyBaseLogger {
  if (given === false) return pino({ level: "silent" });
  if (isLogger(given)) return given;
  return redactingLogger(scrubber, { level, ...given }, destination);
}

function isLogger(l: unknown): l is FastifyBaseLogger {
  return (
    typeof l === "object" &&
    l !== null &&
    typeof (l as FastifyBaseLogger).child === "function" &&
    typeof (l as FastifyBaseLogger).info === "function"
  );
}
