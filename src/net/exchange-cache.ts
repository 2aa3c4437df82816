/** Past this many tokens the oldest go first: a bound on memory, whatever the number of callers. */
const MAX_ENTRIES = 10_000;

/**
 * Exchanged tokens of one upstream, keyed by the caller's token, each kept until its own
 * expiry less a margin (the caller of {@link set} passes the instant it stops being served).
 * Bounded: past MAX_ENTRIES the entry inserted first is dropped. Lives in the process only: an
 * exchanged token is never written anywhere else.
 */
export class ExchangedTokens {
  private readonly entries = new Map<string, { token: string; until: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly max = MAX_ENTRIES,
  ) {}

  /** The token exchanged for `subject`, while it is still good to serve. */
  get(subject: string): string | undefined {
    const hit = this.entries.get(subject);
    if (!hit) return undefined;
    if (this.now() < hit.until) return hit.token;
    this.entries.delete(subject);
    return undefined;
  }

  /** Keeps `token` for `subject` until `until` (epoch ms); nothing when that is already past. */
  set(subject: string, token: string, until: number): void {
    if (until <= this.now()) return;
    this.entries.delete(subject);
    if (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(subject, { token, until });
  }

  /** How many tokens are held (for tests and the bound). */
  get size(): number {
    return this.entries.size;
  }
}
