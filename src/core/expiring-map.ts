/** Past this many entries the oldest go first: a bound on memory, whatever the number of keys. */
const MAX_ENTRIES = 10_000;

/**
 * A map whose entries each last until their own instant (the caller of {@link set} passes it),
 * bounded: past `max` entries the one inserted first is dropped. The one expiring map of the
 * code base: verified JWTs, exchanged upstream tokens. Lives in the process only.
 */
export class ExpiringMap<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();

  constructor(
    // Read through Date each time (not Date.now captured here): a clock swapped later counts.
    private readonly now: () => number = () => Date.now(),
    private readonly max = MAX_ENTRIES,
  ) {}

  /** The value kept for `key`, while it has not expired. */
  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (this.now() < hit.until) return hit.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Keeps `value` for `key` until `until` (epoch ms); nothing when that is already past. */
  set(key: string, value: V, until: number): void {
    if (until <= this.now()) return;
    this.entries.delete(key);
    if (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, until });
  }

  /** Forgets every entry. */
  clear(): void {
    this.entries.clear();
  }

  /** How many entries are held (for tests and the bound). */
  get size(): number {
    return this.entries.size;
  }
}
