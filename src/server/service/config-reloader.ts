import { watch, type FSWatcher } from "node:fs";
import path from "node:path";
import { createToolkit } from "../../create-toolkit.js";
import { loadConfig } from "../../config/load.js";
import type { Logger, Tool } from "../../core/types.js";
import { Authenticator } from "../auth/index.js";
import { refusalReason } from "./startup-checks.js";
import type { ServiceState } from "./service-state.js";

const DEBOUNCE_MS = 250;

/** Options of a {@link ConfigReloader}. */
export interface ReloaderOptions {
  file: string;
  state: ServiceState;
  logger: Logger;
  /** Host tools added to every rebuilt toolkit. */
  tools: Tool[];
  /** Called with the new secrets, so log scrubbing covers values a reload expands. */
  onSecrets?: (secrets: readonly string[]) => void;
  /** `--insecure` was given: command built-ins may run without keys (as at start). */
  insecure?: boolean;
}

/**
 * Hot reload of the config file: on change (or SIGHUP, via {@link reload}) a new toolkit is
 * built beside the old one, reusing unchanged sources. If the new config fails to load the
 * old toolkit stays and the error shows in /status; otherwise the swap is atomic and the old
 * toolkit closes once its calls in flight are done.
 */
export class ConfigReloader {
  private watcher?: FSWatcher;
  private timer?: NodeJS.Timeout;
  private running: Promise<boolean> | undefined;
  private again = false;

  constructor(private readonly opts: ReloaderOptions) {}

  /**
   * Watches the config's directory, not the file: editors replace files, and a Kubernetes
   * ConfigMap swaps its `..data` symlink, and both only show up as events on the directory.
   */
  start(): void {
    const dir = path.dirname(this.opts.file);
    const name = path.basename(this.opts.file);
    this.watcher = watch(dir, (_event, changed) => {
      if (changed === null || changed === name || changed === "..data") this.schedule();
    });
    this.watcher.on("error", (err) => this.opts.logger.warn({ err: err.message }, "config watch failed; SIGHUP still reloads"));
  }

  /** Stops watching and waits for a reload under way (its new toolkit is closed, not served). */
  async stop(): Promise<void> {
    this.watcher?.close();
    clearTimeout(this.timer);
    this.again = false;
    await this.running;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.reload(), DEBOUNCE_MS);
  }

  /** Reloads now. Resolves true when the new config is in service. Overlapping calls coalesce. */
  reload(): Promise<boolean> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.once().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        void this.reload();
      }
    });
    return this.running;
  }

  private async once(): Promise<boolean> {
    const { state, logger, file, tools } = this.opts;
    const old = state.peek();
    if (state.draining || !old) return false;
    const at = new Date().toISOString();
    try {
      const loaded = await loadConfig(file);
      // The start-up rule holds for every config served: a reload must not drop the keys
      // that guard command and file built-ins.
      const refusal = refusalReason(loaded.config, this.opts.insecure);
      if (refusal) throw new Error(refusal.replace("refusing to start", "refusing this config"));
      // Before the toolkit: a bad auth section (a jwksUri that is no URL) leaves nothing started.
      const auth = await Authenticator.create(loaded.config, logger);
      const tk = await createToolkit(loaded, { tools, logger, reuse: old });
      if (state.draining) {
        await tk.close();
        return false;
      }
      this.opts.onSecrets?.(loaded.secrets);
      warnOnRestartOnlyChanges(state.loaded.config.server, loaded.config.server, logger);
      state.setToolkit(tk, loaded, auth);
      state.lastReload = { at, ok: true };
      logger.info({ tools: tk.tools().length }, "config reloaded");
      return true;
    } catch (err) {
      state.lastReload = { at, ok: false, error: (err as Error).message };
      logger.error({ err: (err as Error).message }, "config reload failed; still serving the previous config");
      return false;
    }
  }
}

const RESTART_ONLY = ["host", "port", "bodyLimitBytes", "logLevel"] as const;

function warnOnRestartOnlyChanges(before: Record<string, unknown>, after: Record<string, unknown>, logger: Logger): void {
  const changed = RESTART_ONLY.filter((k) => before[k] !== after[k]);
  if (changed.length) logger.warn({ keys: changed.map((k) => `server.${k}`) }, "these settings take effect at the next restart");
}
