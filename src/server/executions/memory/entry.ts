import { randomBytes } from "node:crypto";
import type { InputResponses } from "../../../core/input/requests.js";
import { iso, type ExecutionT } from "../schemas.js";
import type { ExecutionEvent } from "../engine/store.js";

/** One execution held in this process: its snapshot, its events and who follows them. */
export interface MemoryEntry {
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

/** Applies `change` to the entry's execution. Executions are replaced, not mutated: a snapshot handed out earlier stays what it was. */
export function update(e: MemoryEntry, change: Partial<ExecutionT>): void {
  e.execution = { ...e.execution, ...change, updatedAt: iso(Date.now()) };
}

/** An event before it is numbered. */
type Unnumbered<E> = E extends ExecutionEvent ? Omit<E, "id"> : never;

/** Appends the next event (numbered from 1) and hands it to every follower. */
export function emit(e: MemoryEntry, event: Unnumbered<ExecutionEvent>): void {
  const ev = { id: e.events.length + 1, ...event } as ExecutionEvent;
  e.events.push(ev);
  for (const fn of e.listeners) fn(ev);
}

/** Back to `running`, without the requests that were answered. */
export function backToRunning(e: MemoryEntry): void {
  const { inputRequests: _answered, ...rest } = e.execution;
  e.execution = { ...rest, status: "running", updatedAt: iso(Date.now()) };
}
