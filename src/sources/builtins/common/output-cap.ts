/**
 * Collects a byte stream up to a limit, keeping its beginning and its end: the start of a
 * build log says what ran, its end says what failed. Everything in between is counted, not kept.
 */
export class CappedOutput {
  private readonly headMax: number;
  private readonly tailMax: number;
  private head: Buffer[] = [];
  private headLen = 0;
  private tail: Buffer[] = [];
  private tailLen = 0;
  /** Bytes seen so far. */
  total = 0;

  constructor(readonly limit: number) {
    this.headMax = Math.ceil(limit / 2);
    this.tailMax = limit - this.headMax;
  }

  /** Adds one chunk. */
  push(chunk: Buffer | string): void {
    let buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    this.total += buf.length;
    if (this.headLen < this.headMax) {
      const take = Math.min(this.headMax - this.headLen, buf.length);
      this.head.push(buf.subarray(0, take));
      this.headLen += take;
      buf = buf.subarray(take);
    }
    if (buf.length === 0) return;
    this.tail.push(buf);
    this.tailLen += buf.length;
    // Drop whole chunks that lie entirely before the last tailMax bytes.
    while (this.tail.length > 1 && this.tailLen - (this.tail[0]?.length ?? 0) >= this.tailMax) {
      this.tailLen -= this.tail.shift()?.length ?? 0;
    }
  }

  /** True once more bytes arrived than the limit keeps. */
  get truncated(): boolean {
    return this.total > this.limit;
  }

  /** The kept text; when truncated, a line in the middle says how much was left out. */
  text(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    if (!this.truncated) return head + Buffer.concat(this.tail).toString("utf8");
    const tailBuf = Buffer.concat(this.tail);
    const tail = tailBuf.subarray(Math.max(0, tailBuf.length - this.tailMax)).toString("utf8");
    const omitted = this.total - this.headLen - Math.min(tailBuf.length, this.tailMax);
    return `${head}\n\n[output truncated: ${omitted} of ${this.total} bytes omitted; the limit is ${this.limit} bytes]\n\n${tail}`;
  }
}

/** Joins lines, dropping the ones past `maxBytes` and saying so (listings: the head is what counts). */
export function capLines(lines: string[], maxBytes: number): string {
  let bytes = 0;
  for (const [i, line] of lines.entries()) {
    bytes += Buffer.byteLength(line) + 1;
    if (bytes > maxBytes) return [...lines.slice(0, i), `[output truncated at ${maxBytes} bytes]`].join("\n");
  }
  return lines.join("\n");
}
