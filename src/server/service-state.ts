import type { Toolkit } from "../core/toolkit.js";
import { ToolnexusError } from "../core/errors.js";

/** Where the service is in its life: building sources, serving, or shutting down. */
export type Phase = "loading" | "ready" | "draining";

/**
 * The mutable state routes read: the current toolkit, the phase, the in-flight count and the
 * shutdown signal every call listens to. Kept in one object so reload and shutdown have one
 * place to change.
 */
export class ServiceState {
  phase: Phase = "loading";
  inFlight = 0;
  loadError?: string;
  private current?: Toolkit;
  private readonly shutdownController = new AbortController();

  /** Aborts every in-flight call when the grace period after SIGTERM runs out. */
  get shutdownSignal(): AbortSignal {
    return this.shutdownController.signal;
  }

  /** The toolkit, or NOT_READY while loading or draining. */
  toolkit(): Toolkit {
    if (this.phase !== "ready" || !this.current) {
      throw new ToolnexusError("NOT_READY", this.phase === "draining" ? "The server is shutting down" : "Tool sources are still loading");
    }
    return this.current;
  }

  /** The toolkit when one is built, whatever the phase (status and shutdown use it). */
  peek(): Toolkit | undefined {
    return this.current;
  }

  /** Installs the built toolkit and turns ready (unless already draining). */
  setToolkit(tk: Toolkit): void {
    this.current = tk;
    if (this.phase === "loading") this.phase = "ready";
  }

  /** Stops readiness at once; calls in flight continue until {@link abortInFlight}. */
  drain(): void {
    this.phase = "draining";
  }

  /** Aborts every in-flight call (end of the shutdown grace period). */
  abortInFlight(): void {
    this.shutdownController.abort();
  }
}
