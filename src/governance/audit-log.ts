import type { Logger } from "../core/types.js";
import { auditLine, type AuditArguments, type AuditCall } from "./audit-line.js";
import { RotatingFile } from "./rotating-file.js";

/** The `audit:` config section. */
export interface AuditSettings {
  sink: "stdout" | "file";
  path?: string;
  maxBytes: number;
  arguments: AuditArguments;
  redactKeys?: string[];
}

/** Where stdout-sink lines go: anything with a `write(line)`. */
export interface LineStream {
  write(line: string): unknown;
}

/**
 * The audit trail: one JSON line per call, on stdout or a size-bounded file, with every known
 * secret (values the config expanded from `${VAR}`) scrubbed from the finished line. A failed
 * write is logged and never fails the call it records.
 */
export class AuditLog {
  private readonly file?: RotatingFile;
  private readonly listeners = new Set<(line: string) => void>();

  /** Opens the sink; throws when the audit file cannot be opened (the service must not run unaudited). */
  constructor(
    private readonly settings: () => AuditSettings,
    private readonly scrub: (s: string) => string,
    private readonly log: Logger,
    private readonly stdout: LineStream,
  ) {
    const s = settings();
    try {
      if (s.sink === "file") this.file = new RotatingFile(s.path ?? "", s.maxBytes);
    } catch (err) {
      throw new Error(`audit.path: cannot open the audit file: ${(err as Error).message}`);
    }
  }

  /** Writes the line of one finished call. */
  record(call: AuditCall): void {
    const s = this.settings();
    try {
      let line = this.scrub(auditLine(call, { arguments: s.arguments, ...(s.redactKeys ? { redactKeys: s.redactKeys } : {}) }));
      // Arguments too large for the file's bound: the line keeps their digest only.
      if (this.file && !this.file.fits(line)) line = this.scrub(auditLine(call, { arguments: "digest" }));
      if (this.file) this.file.write(line);
      else this.stdout.write(line);
      for (const fn of this.listeners) fn(line);
    } catch (err) {
      this.log.error({ err: (err as Error).message, tool: call.tool, requestId: call.requestId }, "audit line not written");
    }
  }

  /** Hands every line written from now on to `fn` as well (the console's audit tail); returns its removal. */
  onLine(fn: (line: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Closes the audit file. */
  close(): void {
    this.file?.close();
  }
}
