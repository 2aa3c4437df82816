import { randomFillSync } from "node:crypto";
import type { IdGenerator } from "@opentelemetry/sdk-trace-node";

// Random bytes drawn per refill: 4 KiB is ~170 requests' trace and span ids.
const POOL_BYTES = 4096;
const INVALID_TRACE_ID = "0".repeat(32);
const INVALID_SPAN_ID = "0".repeat(16);

/**
 * Trace and span ids sliced from a pool of random hex, the id generator of the tracer
 * provider and of the unsampled server spans made without it (trace-requests.ts): one
 * `randomFillSync` and one hex conversion per ~170 requests instead of two per span.
 * {@link handOff} makes the next trace id the one the sampler was already asked about, so the
 * SDK, deciding again for a span that is to be recorded, decides on the same id (a ratio
 * sampler would otherwise decide on a fresh one).
 */
export class SpanIds implements IdGenerator {
  private hex = "";
  private at = 0;
  private next: string | undefined;

  /** A 32-hex-digit trace id, never all zeros: the handed-off one if there is one. */
  generateTraceId(): string {
    const id = this.next;
    if (id !== undefined) {
      this.next = undefined;
      return id;
    }
    return this.take(32, INVALID_TRACE_ID);
  }

  /** A 16-hex-digit span id, never all zeros. */
  generateSpanId(): string {
    return this.take(16, INVALID_SPAN_ID);
  }

  /** The trace id the next {@link generateTraceId} returns (undefined: none, a fresh one). */
  handOff(traceId: string | undefined): void {
    this.next = traceId;
  }

  private take(digits: number, invalid: string): string {
    for (;;) {
      if (this.at + digits > this.hex.length) {
        this.hex = randomFillSync(Buffer.allocUnsafe(POOL_BYTES)).toString("hex");
        this.at = 0;
      }
      const id = this.hex.slice(this.at, (this.at += digits));
      if (id !== invalid) return id;
    }
  }
}
