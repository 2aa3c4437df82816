import type { AuditEntryT } from "./schemas.js";

/** What the tail reads from: the audit trail's `onLine` (governance/audit-log.ts). */
export interface AuditSource {
  onLine(fn: (line: string) => void): () => void;
}

/**
 * The last audit lines of this process, for the console: a small ring fed by the audit trail
 * whatever its sink (stdout or the file), and the consoles following it live. The lines are
 * the ones the sink wrote, secrets already scrubbed; nothing is kept past `size` lines.
 */
export class AuditTail {
  private readonly ring: AuditEntryT[] = [];
  private readonly followers = new Set<(e: AuditEntryT) => void>();
  private seq = 0;
  private readonly stop?: () => void;

  /** Follows `source` (undefined when no `audit:` is configured: the tail stays empty). */
  constructor(
    source: AuditSource | undefined,
    private readonly size = 200,
  ) {
    this.stop = source?.onLine((line) => this.add(line));
  }

  /** True when an audit trail feeds the tail. */
  get enabled(): boolean {
    return this.stop !== undefined;
  }

  /** The lines kept, oldest first. */
  lines(): AuditEntryT[] {
    return [...this.ring];
  }

  /** Calls `fn` with every line from now on; returns its removal. */
  follow(fn: (e: AuditEntryT) => void): () => void {
    this.followers.add(fn);
    return () => this.followers.delete(fn);
  }

  /** Stops following the audit trail. */
  close(): void {
    this.stop?.();
    this.followers.clear();
  }

  private add(text: string): void {
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    const entry = { seq: ++this.seq, line };
    this.ring.push(entry);
    if (this.ring.length > this.size) this.ring.shift();
    for (const fn of this.followers) fn(entry);
  }
}
