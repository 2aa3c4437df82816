import type { Writable } from "node:stream";

/**
 * Writes JSON-RPC messages to a stdio MCP server, one line each, and coalesces every message
 * sent in the same event-loop turn into one write.
 *
 * Why: each write(2) to the child's stdin is a syscall that also wakes the child. At c=32 the
 * gateway reads many HTTP requests in one poll phase; writing each call's message at once cost
 * one write per call, and flushing them together (`setImmediate` runs once after the poll phase, where `process.nextTick` and
 * microtasks run after every socket's callback and would not batch) takes the gateway's writes
 * to the child from one per call to one per turn and lets the child read a whole batch at once
 * (bench/README.md, "The MCP hop": gateway and server CPU per call, syscalls per call). A lone
 * call pays one `setImmediate`, which runs in the same loop iteration, before the loop waits.
 */
export class LineWriter {
  private lines: string[] = [];
  private drained?: Promise<void>;

  constructor(private readonly out: Writable) {}

  /**
   * Queues `message` for this turn's write. Resolves at once, or once the pipe drained when the
   * child reads slower than we write (backpressure, as with a plain `write`).
   */
  send(message: unknown): Promise<void> {
    if (this.lines.push(JSON.stringify(message)) === 1) setImmediate(flushLater, this);
    return this.drained ?? Promise.resolve();
  }

  /** Writes what is queued now (also before the stream is ended, so nothing sent is lost). */
  flush(): void {
    if (this.lines.length === 0) return;
    const text = `${this.lines.join("\n")}\n`;
    this.lines = [];
    const out = this.out;
    // Gone meanwhile: the transport's close reports it, and the SDK fails the calls in flight.
    if (out.destroyed || out.writableEnded) return;
    if (!out.write(text) && !this.drained) {
      // Settles on close too: a child that died never drains, and its calls fail by the close.
      this.drained = new Promise<void>((resolve) => {
        const done = () => {
          out.off("drain", done).off("close", done);
          this.drained = undefined;
          resolve();
        };
        out.on("drain", done).on("close", done);
      });
    }
  }
}

// A module-level function with the writer as argument: no closure per flush.
function flushLater(writer: LineWriter): void {
  writer.flush();
}
