import { closeSync, fstatSync, openSync, renameSync, writeSync } from "node:fs";

/**
 * An append-only file that never holds more than `maxBytes` with its one rotated copy: the
 * live file takes at most half, and when a line would push it past that it becomes
 * `<path>.1` (replacing the older copy) and a new live file starts. Writes are synchronous:
 * an audit line is on disk (in the page cache) before the call's response is sent, and the
 * size stays exact without tracking writes in flight.
 */
export class RotatingFile {
  private fd: number;
  private size: number;
  /** Bytes the live file may hold: half the total. */
  readonly limit: number;

  /** Opens (or creates) `path` for appending; throws when it cannot be opened. */
  constructor(
    readonly path: string,
    maxBytes: number,
  ) {
    this.limit = Math.floor(maxBytes / 2);
    this.fd = openSync(path, "a", 0o600);
    this.size = fstatSync(this.fd).size;
    // A file left larger by an earlier run with a bigger limit is rotated before the first write.
    if (this.size > this.limit) this.rotate();
  }

  /** True when `line` fits in one file at all. */
  fits(line: string): boolean {
    return Buffer.byteLength(line) <= this.limit;
  }

  /** Appends `line`, rotating first when it would not fit. Throws on a write error. */
  write(line: string): void {
    const bytes = Buffer.from(line);
    if (bytes.length > this.limit) throw new Error(`an audit line of ${bytes.length} bytes exceeds half of audit.maxBytes`);
    if (this.size + bytes.length > this.limit) this.rotate();
    writeSync(this.fd, bytes);
    this.size += bytes.length;
  }

  /** Closes the file. */
  close(): void {
    closeSync(this.fd);
  }

  private rotate(): void {
    closeSync(this.fd);
    renameSync(this.path, `${this.path}.1`);
    this.fd = openSync(this.path, "a", 0o600);
    this.size = 0;
  }
}
