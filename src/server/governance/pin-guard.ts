import { Counter, type Registry } from "prom-client";
import type { PinningConfig } from "../../config/schema/index.js";
import { ToolnexusError } from "../../core/errors.js";
import type { Toolkit } from "../../core/toolkit.js";
import type { Logger } from "../../core/types.js";
import { MemoryPinStore, type PinStore } from "../../governance/pin-store.js";
import { pinOf, reviewCatalog, type PendingChange } from "../../governance/pin-review.js";
import { definitionByKey, surfaceDefinitions } from "../../governance/surface-definitions.js";
import type { Pin } from "../../governance/tool-definition.js";
import type { CatalogHold, ServiceState } from "../service/service-state.js";

/** What `/status` and `GET /admin/pins` show of pinning. */
export interface PinStatus {
  mode: PinningConfig["mode"];
  newTools: PinningConfig["newTools"];
  store: string;
  pending: PendingChange[];
}

/**
 * Tool-definition pinning of a running service: compares every catalog (first load, reload,
 * a source's list change, an approval on another replica) with the pins, warns and counts
 * each change once, and in `block` mode holds the changed tools back from every catalog and
 * call until an operator approves them. The prompts and resource templates of MCP servers are
 * reviewed the same way, under `prompt:<name>` and `resourceTemplate:<uriTemplate>`.
 */
export class PinGuard implements CatalogHold {
  generation = 0;
  private pins = new Map<string, Pin>();
  private pending = new Map<string, PendingChange>();
  /** `tool|digest` of changes already warned about and counted. */
  private readonly announced = new Set<string>();
  private readonly changes: Counter<"tool" | "kind">;
  private refreshing?: Promise<void>;
  private refreshAgain = false;

  constructor(
    private readonly state: ServiceState,
    private store: PinStore,
    private readonly log: Logger,
    registry: Registry,
  ) {
    this.changes = new Counter({
      name: "toolnexus_tool_definition_changes_total",
      help: "Tool definitions that differ from their pin (kind changed), or new tools held for approval (kind new)",
      labelNames: ["tool", "kind"],
      registers: [registry],
    });
  }

  private get settings(): PinningConfig {
    return this.state.loaded.config.pinning;
  }

  /**
   * Loads the pins and checks they can be saved. In `block` mode an unreadable, corrupt or
   * unwritable store stops the start (rejects); in `warn` mode it is logged and pins live in
   * the process (the bad file is left as it is, never overwritten).
   */
  async init(): Promise<void> {
    if (this.settings.mode === "off") return;
    try {
      this.pins = await this.store.load();
      await this.store.checkWritable();
    } catch (err) {
      const message = (err as Error).message;
      if (this.settings.mode === "block") {
        await this.store.close?.();
        throw new Error(`pinning: ${message}; refusing to start with pinning.mode block`);
      }
      this.log.warn(
        { err: message, store: this.store.describe },
        "pinning: the pin store is unusable; pins are kept in this process only until it is fixed",
      );
      await this.store.close?.();
      this.store = new MemoryPinStore();
    }
    this.store.watch?.(() => void this.refresh());
  }

  /** Follows the toolkit in service: reviewed now and after each of its list changes. */
  follow(tk: Toolkit): void {
    this.review(tk);
    tk.onChange(() => {
      if (this.state.peek() === tk) this.review(tk);
    });
  }

  /** True when the tool is held back (changed, or new and not approved, under the policy). */
  withheld(tool: string): boolean {
    return this.pending.get(tool)?.withheld === true;
  }

  /**
   * Re-reads the pins (an approval by another replica or the CLI) and reviews the catalog again.
   * Calls while one runs are coalesced into one more: a first start announces every new pin.
   */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        await this.reread();
      } while (this.refreshAgain);
    })().finally(() => {
      this.refreshing = undefined;
      // Asked for between the loop's last check and here.
      if (this.refreshAgain) void this.refresh();
    });
    return this.refreshing;
  }

  private async reread(): Promise<void> {
    if (this.settings.mode === "off") return;
    try {
      this.pins = await this.store.load();
    } catch (err) {
      this.log.warn(
        { err: (err as Error).message, store: this.store.describe },
        "pinning: the pins could not be re-read; the last ones read still apply",
      );
      return;
    }
    const tk = this.state.peek();
    if (tk) this.review(tk);
  }

  /**
   * Pins the definition a tool (or `prompt:<name>`, `resourceTemplate:<uriTemplate>`) has now.
   * TOOL_NOT_FOUND when the catalog serves no such thing.
   */
  async approve(tool: string, by: string): Promise<Pin> {
    const tk = this.state.peek();
    const found = tk && definitionByKey(tk, tool);
    if (!found)
      throw new ToolnexusError(
        "TOOL_NOT_FOUND",
        `No tool, prompt:<name> or resourceTemplate:<uriTemplate> "${tool.slice(0, 200)}" in the catalog: only what is being served can be approved`,
      );
    const pin = pinOf(found, new Date(), by);
    await this.persist(() => this.store.save(tool, pin));
    this.pins.set(tool, pin);
    this.log.info({ tool, digest: pin.digest, approvedBy: by }, "pinning: tool definition approved");
    this.reviewCurrent();
    return pin;
  }

  /** Forgets a pin (or every pin): the tool is pinned afresh at its next sight. */
  async reset(tool?: string): Promise<void> {
    await this.persist(() => this.store.remove(tool));
    if (tool === undefined) this.pins.clear();
    else this.pins.delete(tool);
    this.reviewCurrent();
  }

  /** The pinning state for `/status` and `GET /admin/pins`. */
  status(): PinStatus {
    return { mode: this.settings.mode, newTools: this.settings.newTools, store: this.store.describe, pending: [...this.pending.values()] };
  }

  /** Closes the store's connections and watchers. */
  async close(): Promise<void> {
    await this.store.close?.();
  }

  private reviewCurrent(): void {
    const tk = this.state.peek();
    if (tk) this.review(tk);
  }

  private review(tk: Toolkit): void {
    const { record, pending } = reviewCatalog(tk.tools(), this.pins, this.settings, new Date(), surfaceDefinitions(tk.surface()));
    for (const { tool, pin } of record) {
      this.pins.set(tool, pin);
      void this.persist(() => this.store.save(tool, pin)).catch((err: Error) =>
        this.log.warn({ tool, err: err.message }, "pinning: a new pin could not be saved"),
      );
    }
    const keys = new Set([...pending.values()].map((p) => `${p.tool}|${p.current}`));
    // A change that went away (the definition came back) is announced again if it returns.
    for (const k of this.announced) if (!keys.has(k)) this.announced.delete(k);
    for (const p of pending.values()) {
      const key = `${p.tool}|${p.current}`;
      if (this.announced.has(key)) continue;
      this.announced.add(key);
      this.changes.inc({ tool: p.tool, kind: p.kind });
      const what =
        p.kind === "new" ? "new tool held until approved" : `tool definition changed${p.withheld ? "; withheld until approved" : ""}`;
      this.log.warn(
        { tool: p.tool, pinned: p.pinned, current: p.current, changed: p.changes.map((c) => `${c.path} ${c.change}`) },
        `pinning: ${what}`,
      );
    }
    const before = [...this.pending.values()].map((p) => `${p.tool}|${p.current}|${p.withheld}`).join(",");
    const after = [...pending.values()].map((p) => `${p.tool}|${p.current}|${p.withheld}`).join(",");
    this.pending = pending;
    if (before !== after) {
      this.generation++;
      // What callers may list changed: MCP clients listening for list changes hear of it.
      this.state.catalogChanged();
    }
  }

  private async persist(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      throw new ToolnexusError("STORE_UNAVAILABLE", `The pins could not be saved (${this.store.describe})`, { cause: err });
    }
  }
}
