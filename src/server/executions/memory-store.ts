import { randomBytes } from "node:crypto";
import { ToolnexusError } from "../../core/errors.js";
import type { InputRequests, InputResponses } from "../../core/input-requests.js";
import type { Progress } from "../../core/types.js";
import type { ExecutionsConfig } from "../../config/schema/index.js";
import { isTerminal, type ExecutionStatusT, type ExecutionT } from "./schemas.js";
import { checkResponses, InputWaits, notWaiting, stillOpen } from "./input-wait.js";
import type {
  Adopted,
  Adoption,
  ExecutionEvent,
  ExecutionPage,
  ExecutionStore,
  Outcome,
  RunHooks,
  Runner,
  Submission,
  Watch,
} from "./store.js";

interface Entry {
  execution: ExecutionT;
  owner: string;
  seq: number;
  fingerprint: string;
  idempotencyKey?: string;
  expiresAtMs: number;
  events: ExecutionEvent[];
  listeners: Set<(e: ExecutionEvent) => void>;
  cancel: AbortController;
  /** Settles once the run's outcome is recorded. */
  done?: Promise<void>;
  /** Responses given so far to the requests the execution waits on (a partial answer). */
  answered?: InputResponses;
}

/** A fresh execution id: 128 random bits, hex. */
export function newExecutionId(): string {
  return randomBytes(16).toString("hex");
}

/**
 * Executions held in this process (the default: one replica, nothing else to run). Runs
 * start at once; expired entries are dropped lazily and by an unref'd sweep.
 */
export class MemoryExecutionStore implements ExecutionStore {
  private readonly entries = new Map<string, Entry>();
  private readonly byOwner = new Map<string, string[]>();
  private readonly idempotency = new Map<string, string>();
  private readonly active = new Map<string, number>();
  /** Each owner's finished executions, in the order they finished (trimmed from the front). */
  private readonly finished = new Map<string, string[]>();
  private seq = 0;
  private readonly sweep: NodeJS.Timeout;
  private readonly waits = new InputWaits();

  constructor(
    private readonly config: () => ExecutionsConfig,
    private readonly runner: Runner,
    /** `server.inputTimeoutMs`, read per wait. */
    private readonly inputTimeoutMs: () => number = () => 600_000,
  ) {
    this.sweep = setInterval(() => this.expire(), Math.min(config().retentionMs, 60_000));
    this.sweep.unref();
  }

  async submit(s: Submission, fingerprint: string): Promise<{ execution: ExecutionT; replayed: boolean }> {
    this.expire();
    const idemKey = s.idempotencyKey === undefined ? undefined : `${s.owner}\n${s.idempotencyKey}`;
    const earlier = idemKey === undefined ? undefined : this.entries.get(this.idempotency.get(idemKey) ?? "");
    if (earlier) {
      if (earlier.fingerprint !== fingerprint) throw reused();
      return { execution: earlier.execution, replayed: true };
    }
    const entry = this.create(s, "queued", fingerprint, idemKey);
    entry.done = this.run(entry, s);
    return { execution: entry.execution, replayed: false };
  }

  async adopt(a: Adoption): Promise<Adopted> {
    this.expire();
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
    if (!e) return undefined;
    const { status, inputRequests, error } = e.execution;
    if (status !== "input_required" || !inputRequests) {
      if (error?.code === "INPUT_TIMEOUT") throw new ToolnexusError("INPUT_TIMEOUT", "The input request has expired");
      throw notWaiting(status);
    }
    checkResponses(inputRequests, responses, partial);
    if (Object.keys(responses).length === 0) return e.execution;
    const answered = { ...e.answered, ...responses };
    const open = stillOpen(inputRequests, answered);
    if (Object.keys(open).length > 0) {
      e.answered = answered;
      this.update(e, { inputRequests: open });
      return e.execution;
    }
    this.running(e);
    this.waits.answer(id, answered);
    return e.execution;
  }

  private create(s: Adoption, status: "queued" | "running", fingerprint: string, idemKey?: string): Entry {
    const { maxActivePerCaller, retentionMs } = this.config();
    const active = this.active.get(s.owner) ?? 0;
    if (active >= maxActivePerCaller) {
      throw new ToolnexusError("OVERLOADED", `More than ${maxActivePerCaller} executions queued or running for this caller`, {
        headers: { "retry-after": "1" },
      });
    }
    const now = Date.now();
    const id = newExecutionId();
    const entry: Entry = {
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
    const page: Entry[] = [];
    for (let i = ids.length - 1; i >= 0 && page.length <= q.limit; i--) {
      const e = this.entries.get(ids[i] ?? "");
      if (!e || e.seq >= before || (q.status && e.execution.status !== q.status)) continue;
      page.push(e);
    }
    const more = page.length > q.limit;
    const shown = page.slice(0, q.limit);
    return { executions: shown.map((e) => e.execution), ...(more ? { next: String(shown.at(-1)?.seq) } : {}) };
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
    await Promise.allSettled([...this.entries.values()].map((e) => e.done));
  }

  private async run(e: Entry, s: Submission): Promise<void> {
    const outcome: Outcome = await this.runner(
      {
        id: e.execution.id,
        owner: s.owner,
        tool: s.tool,
        body: s.body,
        requestId: s.requestId,
        ...(s.callerToken ? { callerToken: s.callerToken } : {}),
      },
      this.hooks(e),
    );
    this.record(e, s.owner, outcome);
  }

  private hooks(e: Entry): RunHooks {
    return {
      signal: e.cancel.signal,
      onStart: () => this.update(e, { status: "running" }),
      onProgress: (p: Progress) => {
        if (isTerminal(e.execution.status)) return;
        this.update(e, { progress: p });
        this.emit(e, { id: e.events.length + 1, event: "progress", data: p });
      },
      onInputRequest: (requests, onAsked) => this.ask(e, requests, onAsked),
    };
  }

  private async ask(e: Entry, inputRequests: InputRequests, onAsked?: () => void): Promise<InputResponses> {
    if (isTerminal(e.execution.status)) throw notWaiting(e.execution.status);
    delete e.answered;
    this.update(e, { status: "input_required", inputRequests });
    this.emit(e, { id: e.events.length + 1, event: "input_required", data: { inputRequests } });
    try {
      const answer = this.waits.wait(e.execution.id, this.inputTimeoutMs(), e.cancel.signal);
      onAsked?.();
      return await answer;
    } finally {
      if (e.execution.status === "input_required") this.running(e);
    }
  }

  /** Back to `running`, without the requests that were answered. */
  private running(e: Entry): void {
    const { inputRequests: _answered, ...rest } = e.execution;
    e.execution = { ...rest, status: "running", updatedAt: iso(Date.now()) };
  }

  private record(e: Entry, owner: string, outcome: Outcome): void {
    this.waits.end(e.execution.id, new ToolnexusError("CANCELLED", "The call ended before the answer came"));
    const now = Date.now();
    e.expiresAtMs = now + this.config().retentionMs;
    this.active.set(owner, (this.active.get(owner) ?? 1) - 1);
    if (e.execution.inputRequests) this.running(e);
    if (outcome.status === "succeeded") {
      this.update(e, { status: "succeeded", result: outcome.result, expiresAt: iso(e.expiresAtMs) });
      this.emit(e, { id: e.events.length + 1, event: "result", data: outcome.result });
    } else {
      this.update(e, { status: outcome.status, error: outcome.error, expiresAt: iso(e.expiresAtMs) });
      this.emit(e, { id: e.events.length + 1, event: "error", data: outcome.error });
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

  // Executions are replaced, not mutated: a snapshot handed out earlier stays what it was.
  private update(e: Entry, change: Partial<ExecutionT>): void {
    e.execution = { ...e.execution, ...change, updatedAt: iso(Date.now()) };
  }

  private emit(e: Entry, ev: ExecutionEvent): void {
    e.events.push(ev);
    for (const fn of e.listeners) fn(ev);
  }

  private entry(owner: string, id: string): Entry | undefined {
    const e = this.entries.get(id);
    if (!e || e.owner !== owner) return undefined;
    if (e.expiresAtMs <= Date.now()) {
      this.drop(e);
      return undefined;
    }
    return e;
  }

  private expire(): void {
    const now = Date.now();
    for (const e of this.entries.values()) if (e.expiresAtMs <= now) this.drop(e);
  }

  private drop(e: Entry): void {
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

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
