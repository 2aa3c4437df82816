import { ToolnexusError } from "../../../core/errors.js";
import type { InputResponses } from "../../../core/input/requests.js";
import type { Progress } from "../../../core/types.js";
import type { ExecutionsConfig } from "../../../config/schema/index.js";
import { isTerminal, iso, type ExecutionStatusT, type ExecutionT } from "../schemas.js";
import { emit, newExecutionId, update, type MemoryEntry } from "./entry.js";
import { MemoryInput } from "./input.js";
import type {
  Adopted,
  Adoption,
  ExecutionEvent,
  ExecutionPage,
  ExecutionStore,
  Outcome,
  OwnedExecutionPage,
  RunHooks,
  Runner,
  Submission,
  Watch,
} from "../engine/store.js";
import { jobOf } from "../engine/store.js";

/**
 * Executions held in this process (the default: one replica, nothing else to run). Runs
 * start at once; expired entries are dropped lazily and by an unref'd sweep.
 */
export class MemoryExecutionStore implements ExecutionStore {
  private readonly entries = new Map<string, MemoryEntry>();
  private readonly byOwner = new Map<string, string[]>();
  private readonly idempotency = new Map<string, string>();
  private readonly active = new Map<string, number>();
  /** Each owner's finished executions, in the order they finished (trimmed from the front). */
  private readonly finished = new Map<string, string[]>();
  private seq = 0;
  private sweptAt = 0;
  private readonly sweep: NodeJS.Timeout;
  private readonly inputs: MemoryInput;

  constructor(
    private readonly config: () => ExecutionsConfig,
    private readonly runner: Runner,
    /** `server.inputTimeoutMs`, read per wait. */
    inputTimeoutMs: () => number = () => 600_000,
  ) {
    this.inputs = new MemoryInput(inputTimeoutMs);
    this.sweep = setInterval(() => this.expire(), Math.min(config().retentionMs, 60_000));
    this.sweep.unref();
  }

  async submit(s: Submission, fingerprint: string): Promise<{ execution: ExecutionT; replayed: boolean }> {
    this.expireSometimes();
    const idemKey = s.idempotencyKey === undefined ? undefined : `${s.owner}\n${s.idempotencyKey}`;
    // An expired one is gone (entry() drops it), whenever the last sweep ran.
    const earlier = idemKey === undefined ? undefined : this.entry(s.owner, this.idempotency.get(idemKey) ?? "");
    if (earlier) {
      if (earlier.fingerprint !== fingerprint) throw reused();
      return { execution: earlier.execution, replayed: true };
    }
    const entry = this.create(s, "queued", fingerprint, idemKey);
    entry.done = this.run(entry, s);
    return { execution: entry.execution, replayed: false };
  }

  async adopt(a: Adoption): Promise<Adopted> {
    this.expireSometimes();
    const entry = this.create(a, "running", "");
    let settle = () => {};
    entry.done = new Promise<void>((r) => (settle = r));
    return {
      execution: entry.execution,
      hooks: this.hooks(entry),
      finish: async (outcome) => {
        this.record(entry, a.owner, outcome);
        settle();
      },
    };
  }

  async input(owner: string, id: string, responses: InputResponses, partial = false): Promise<ExecutionT | undefined> {
    const e = this.entry(owner, id);
    return e && this.inputs.answer(e, responses, partial);
  }

  private create(s: Adoption, status: "queued" | "running", fingerprint: string, idemKey?: string): MemoryEntry {
    const { maxActivePerCaller, retentionMs } = this.config();
    const active = this.active.get(s.owner) ?? 0;
    if (active >= maxActivePerCaller) {
      throw new ToolnexusError("OVERLOADED", `More than ${maxActivePerCaller} executions queued or running for this caller`, {
        headers: { "retry-after": "1" },
      });
    }
    const now = Date.now();
    const id = newExecutionId();
    const entry: MemoryEntry = {
      execution: {
        id,
        tool: s.tool,
        status,
        createdAt: iso(now),
        updatedAt: iso(now),
        expiresAt: iso(now + s.timeoutMs + retentionMs),
      },
      owner: s.owner,
      seq: ++this.seq,
      fingerprint,
      expiresAtMs: now + s.timeoutMs + retentionMs,
      events: [],
      listeners: new Set(),
      cancel: new AbortController(),
      ...(idemKey === undefined ? {} : { idempotencyKey: idemKey }),
    };
    this.entries.set(id, entry);
    let ids = this.byOwner.get(s.owner);
    if (!ids) this.byOwner.set(s.owner, (ids = []));
    ids.push(id);
    if (idemKey !== undefined) this.idempotency.set(idemKey, id);
    this.active.set(s.owner, active + 1);
    return entry;
  }

  async get(owner: string, id: string): Promise<ExecutionT | undefined> {
    return this.entry(owner, id)?.execution;
  }

  async list(owner: string, q: { status?: ExecutionStatusT; limit: number; cursor?: string }): Promise<ExecutionPage> {
    this.expire();
    const before = q.cursor === undefined ? Infinity : Number(q.cursor);
    const ids = this.byOwner.get(owner) ?? [];
    const page: MemoryEntry[] = [];
    for (let i = ids.length - 1; i >= 0 && page.length <= q.limit; i--) {
      const e = this.entries.get(ids[i] ?? "");
      if (!e || e.seq >= before || (q.status && e.execution.status !== q.status)) continue;
      page.push(e);
    }
    const more = page.length > q.limit;
    const shown = page.slice(0, q.limit);
    return { executions: shown.map((e) => e.execution), ...(more ? { next: String(shown.at(-1)?.seq) } : {}) };
  }

  async listAll(q: { active?: boolean; limit: number; cursor?: string }): Promise<OwnedExecutionPage> {
    this.expire();
    const before = q.cursor === undefined ? Infinity : Number(q.cursor);
    // Entries keep their creation order (a Map iterates in insertion order): newest last.
    const all = [...this.entries.values()];
    const page: MemoryEntry[] = [];
    for (let i = all.length - 1; i >= 0 && page.length <= q.limit; i--) {
      const e = all[i];
      if (!e || e.seq >= before || (q.active && isTerminal(e.execution.status))) continue;
      page.push(e);
    }
    const shown = page.slice(0, q.limit);
    return {
      executions: shown.map((e) => ({ owner: e.owner, execution: e.execution })),
      ...(page.length > q.limit ? { next: String(shown.at(-1)?.seq) } : {}),
    };
  }

  async ownerOf(id: string): Promise<string | undefined> {
    return this.entries.get(id)?.owner;
  }

  async cancel(owner: string, id: string): Promise<ExecutionT | undefined> {
    const e = this.entry(owner, id);
    if (!e) return undefined;
    if (isTerminal(e.execution.status)) return e.execution;
    e.cancel.abort();
    // The call settles as soon as its signal aborts (even when the tool ignores it).
    await e.done;
    return e.execution;
  }

  async watch(owner: string, id: string, after: number, onEvent: (e: ExecutionEvent) => void): Promise<Watch | undefined> {
    const e = this.entry(owner, id);
    if (!e) return undefined;
    const execution = e.execution;
    for (const ev of e.events) if (ev.id > after) onEvent(ev);
    const listener = (ev: ExecutionEvent) => onEvent(ev);
    if (!isTerminal(execution.status)) e.listeners.add(listener);
    return { execution, stop: () => e.listeners.delete(listener) };
  }

  // Runs still going hold their toolkit: wait for them (shutdown aborts them after its grace
  // period) so their sources are not closed under them.
  async close(): Promise<void> {
    clearInterval(this.sweep);
    this.inputs.close();
    await Promise.allSettled([...this.entries.values()].map((e) => e.done));
  }

  private async run(e: MemoryEntry, s: Submission): Promise<void> {
    const outcome: Outcome = await this.runner(jobOf(e.execution.id, s), this.hooks(e));
    this.record(e, s.owner, outcome);
  }

  private hooks(e: MemoryEntry): RunHooks {
    return {
      signal: e.cancel.signal,
      onStart: () => update(e, { status: "running" }),
      onProgress: (p: Progress) => {
        if (isTerminal(e.execution.status)) return;
        update(e, { progress: p });
        emit(e, { event: "progress", data: p });
      },
      onInputRequest: (requests, onAsked) => this.inputs.ask(e, requests, onAsked),
    };
  }

  private record(e: MemoryEntry, owner: string, outcome: Outcome): void {
    this.inputs.end(e);
    const now = Date.now();
    e.expiresAtMs = now + this.config().retentionMs;
    this.active.set(owner, (this.active.get(owner) ?? 1) - 1);
    if (outcome.status === "succeeded") {
      update(e, { status: "succeeded", result: outcome.result, expiresAt: iso(e.expiresAtMs) });
      emit(e, { event: "result", data: outcome.result });
    } else {
      update(e, { status: outcome.status, error: outcome.error, expiresAt: iso(e.expiresAtMs) });
      emit(e, { event: "error", data: outcome.error });
    }
    e.listeners.clear();
    this.trim(owner, e.execution.id);
  }

  // Retention alone would let one caller pile up a day of finished results in this process:
  // past maxRetainedPerCaller, the executions that finished first go first (never the one
  // that just finished, however long ago it was submitted).
  private trim(owner: string, justFinished: string): void {
    let done = this.finished.get(owner);
    if (!done) this.finished.set(owner, (done = []));
    done.push(justFinished);
    while (done.length > this.config().maxRetainedPerCaller) {
      const e = this.entries.get(done[0] ?? "");
      if (e) this.drop(e);
      else done.shift();
    }
  }

  private entry(owner: string, id: string): MemoryEntry | undefined {
    const e = this.entries.get(id);
    if (!e || e.owner !== owner) return undefined;
    if (e.expiresAtMs <= Date.now()) {
      this.drop(e);
      return undefined;
    }
    return e;
  }

  // The sweep of every entry, on the submit path at most once a second: a submit must not cost
  // more the more executions are kept (an expired entry is dropped when it is read anyway).
  private expireSometimes(): void {
    const now = Date.now();
    if (now - this.sweptAt < 1000) return;
    this.sweptAt = now;
    this.expire();
  }

  private expire(): void {
    const now = Date.now();
    for (const e of this.entries.values()) if (e.expiresAtMs <= now) this.drop(e);
  }

  private drop(e: MemoryEntry): void {
    // A run outlasting its expiry (timeoutMs + retention) is cut so nothing stays active forever.
    if (!isTerminal(e.execution.status)) e.cancel.abort();
    this.entries.delete(e.execution.id);
    if (e.idempotencyKey !== undefined && this.idempotency.get(e.idempotencyKey) === e.execution.id)
      this.idempotency.delete(e.idempotencyKey);
    const ids = this.byOwner.get(e.owner);
    const i = ids?.indexOf(e.execution.id) ?? -1;
    if (ids && i >= 0) ids.splice(i, 1);
    if (ids?.length === 0) this.byOwner.delete(e.owner);
    const done = this.finished.get(e.owner);
    const j = done?.indexOf(e.execution.id) ?? -1;
    if (done && j >= 0) done.splice(j, 1);
    if (done?.length === 0) this.finished.delete(e.owner);
  }
}

function reused(): ToolnexusError {
  return new ToolnexusError("IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was already used for another call");
}
