import type { Toolkit } from "../../core/toolkit.js";
import { ToolnexusError } from "../../core/errors.js";
import { sharedSealer, type Sealer } from "../../core/seal.js";
import type { LoadedConfig } from "../../config/load.js";
import type { Authenticator } from "../auth/index.js";
import { RunningCalls, type RunningEntry } from "./running-calls.js";

/** A call as the service state sees it: something shutdown can abort (calls/call-signal.ts). */
export interface Abortable {
  abort(reason: ToolnexusError): void;
}

/** Where the service is in its life: building sources, serving, or shutting down. */
export type Phase = "loading" | "ready" | "draining";

/** Tools held back from every catalog and call (a changed definition awaiting approval). */
export interface CatalogHold {
  withheld(tool: string): boolean;
  /** Changes whenever the set of held tools changes: part of every catalog cache key. */
  readonly generation: number;
}

const NO_HOLD: CatalogHold = { withheld: () => false, generation: 0 };

/** The outcome of the last config reload, shown by `GET /status`. */
export interface ReloadResult {
  at: string;
  ok: boolean;
  error?: string;
}

/**
 * The mutable state routes read: the current toolkit, config and keys, the phase, the
 * in-flight count and the shutdown signal every call listens to. A reload swaps the toolkit
 * here; calls in flight keep the one they started on, which closes when its last call ends.
 */
export class ServiceState {
  phase: Phase = "loading";
  /** Tools still working after their call gave up on them (they ignored the abort). */
  abandoned = 0;
  /** Calls running now; shutdown aborts them all at the end of the grace period. */
  readonly calls = new RunningCalls<Abortable>();
  loadError?: string;
  lastReload?: ReloadResult;
  private current?: Toolkit;
  private readonly users = new Map<Toolkit, number>();
  private readonly retiring = new Set<Toolkit>();
  private shuttingDown = false;
  /** What pinning holds back; nothing unless pinning is on. */
  hold: CatalogHold = NO_HOLD;
  private readonly toolkitListeners: ((tk: Toolkit) => void)[] = [];
  private readonly catalogListeners = new Set<() => void>();
  private unwatch?: () => void;

  constructor(
    public loaded: LoadedConfig,
    public auth: Authenticator,
  ) {}

  /** The process's one sealer of state handed to callers (`server.stateSecret`; input requests). */
  get sealer(): Sealer {
    return sharedSealer(this.loaded.config.server.stateSecret);
  }

  /** True once shutdown began. */
  get draining(): boolean {
    return this.phase === "draining";
  }

  /** How many calls are running now. */
  get inFlight(): number {
    return this.calls.size;
  }

  /**
   * Registers a running call; one that starts after the grace period is aborted at once. Hand
   * the entry back to {@link untrack} when the call ends.
   */
  track(call: Abortable): RunningEntry<Abortable> {
    const entry = this.calls.add(call);
    if (this.shuttingDown) call.abort(shutdownError());
    return entry;
  }

  /** Ends a call begun with {@link track}. */
  untrack(entry: RunningEntry<Abortable>): void {
    this.calls.delete(entry);
  }

  /** The toolkit, or NOT_READY while loading or draining. */
  toolkit(): Toolkit {
    if (this.phase !== "ready" || !this.current) {
      throw new ToolnexusError("NOT_READY", this.phase === "draining" ? "The server is shutting down" : "Tool sources are still loading");
    }
    return this.current;
  }

  /** The toolkit for one call; pair with {@link release} so a swapped-out toolkit closes after it. */
  acquire(): Toolkit {
    const tk = this.toolkit();
    this.users.set(tk, (this.users.get(tk) ?? 0) + 1);
    return tk;
  }

  /** Ends a call begun with {@link acquire}. */
  release(tk: Toolkit): void {
    const n = (this.users.get(tk) ?? 1) - 1;
    // The toolkit in service keeps its entry at 0: deleting and re-adding it as the count passes
    // through 0 under load made V8 rebuild the map's table each time (running-calls.ts says how).
    if (n > 0 || tk === this.current) {
      this.users.set(tk, n);
      return;
    }
    this.users.delete(tk);
    if (this.retiring.delete(tk)) void tk.close();
  }

  /** The toolkit when one is built, whatever the phase (status and shutdown use it). */
  peek(): Toolkit | undefined {
    return this.current;
  }

  /** Calls `fn` with each toolkit put in service, before it serves (pinning reviews it). */
  onToolkit(fn: (tk: Toolkit) => void): void {
    this.toolkitListeners.push(fn);
  }

  /** The key of what a catalog cache holds: the toolkit's version and what is held back. */
  viewVersion(tk: Toolkit): string {
    return `${tk.version}.${this.hold.generation}`;
  }

  /** Installs a toolkit (first load or reload) and turns ready unless draining; retires the old one. */
  setToolkit(tk: Toolkit, loaded?: LoadedConfig, auth?: Authenticator): void {
    const old = this.current;
    this.current = tk;
    if (old !== tk) {
      this.unwatch?.();
      this.unwatch = tk.onChange(() => this.catalogChanged());
    }
    if (loaded) this.loaded = loaded;
    if (auth) this.auth = auth;
    for (const fn of this.toolkitListeners) fn(tk);
    if (this.phase === "loading") this.phase = "ready";
    if (old && old !== tk) {
      if ((this.users.get(old) ?? 0) > 0) this.retiring.add(old);
      else {
        this.users.delete(old);
        void old.close();
      }
      this.catalogChanged();
    }
  }

  /**
   * Calls `fn` after the catalog in service changed: a reload swapped the toolkit, or a source
   * of the current one changed its tools (an MCP server's list_changed). Returns the way to stop.
   */
  onCatalogChange(fn: () => void): () => void {
    this.catalogListeners.add(fn);
    return () => void this.catalogListeners.delete(fn);
  }

  /** Tells the listeners of {@link onCatalogChange} (also when pinning holds back or releases a tool). */
  catalogChanged(): void {
    for (const fn of this.catalogListeners) fn();
  }

  /** Stops readiness at once; calls in flight continue until {@link abortInFlight}. */
  drain(): void {
    this.phase = "draining";
  }

  /** Aborts every in-flight call (end of the shutdown grace period). */
  abortInFlight(): void {
    this.shuttingDown = true;
    for (const call of this.calls.items()) call.abort(shutdownError());
  }

  /** Every toolkit still open: the current one and those waiting for their last call. */
  openToolkits(): Toolkit[] {
    return [...new Set([...(this.current ? [this.current] : []), ...this.retiring])];
  }
}

function shutdownError(): ToolnexusError {
  return new ToolnexusError("NOT_READY", "The server is shutting down");
}
