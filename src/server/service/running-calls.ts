// The calls running now, as a doubly linked list rather than a Set.
//
// Under load the set of running calls fills and empties many times a second. A Set gave every
// call object an identity hash on insertion and, as it emptied, made V8 rehash its table into a
// smaller new one, then into a larger one as it filled again: a server profile put ~1 µs a call
// under those rehashes (bench/history/2026-12-06-execute-path.md). A list allocates one small
// entry per call and unlinks it in constant time.

/** A call's place in {@link RunningCalls}: what `add` returned, handed back to `delete`. */
export interface RunningEntry<T> {
  /** The call. */
  readonly item: T;
  /** The entry before, while linked. */
  prev: RunningEntry<T> | undefined;
  /** The entry after, while linked. */
  next: RunningEntry<T> | undefined;
  /** False once removed. */
  linked: boolean;
}

/** An insertion-ordered collection of running calls with constant-time removal by entry. */
export class RunningCalls<T> {
  private count = 0;
  private head: RunningEntry<T> | undefined;
  private tail: RunningEntry<T> | undefined;

  /** How many are in the list. */
  get size(): number {
    return this.count;
  }

  /** Appends `item`; keep the entry to remove it with {@link delete}. */
  add(item: T): RunningEntry<T> {
    const entry: RunningEntry<T> = { item, prev: this.tail, next: undefined, linked: true };
    if (this.tail) this.tail.next = entry;
    else this.head = entry;
    this.tail = entry;
    this.count++;
    return entry;
  }

  /** Removes an entry; a second removal of the same entry does nothing. */
  delete(entry: RunningEntry<T>): void {
    if (!entry.linked) return;
    entry.linked = false;
    if (entry.prev) entry.prev.next = entry.next;
    else this.head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else this.tail = entry.prev;
    entry.prev = entry.next = undefined;
    this.count--;
  }

  /** The items, oldest first, as a copy: removing while walking it is safe. */
  items(): T[] {
    const out: T[] = [];
    for (let e = this.head; e; e = e.next) out.push(e.item);
    return out;
  }
}
