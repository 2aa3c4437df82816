import { createHash } from "node:crypto";
import { ToolnexusError } from "../../../core/errors.js";
import type { Progress } from "../../../core/types.js";
import type { ExecutionStatusT, ExecutionT } from "../schemas.js";

/** The Redis keys and channels of the execution store. An owner id is hashed where it meets a caller-chosen key. */
export interface ExecutionKeys {
  /** Prefix of an execution's record hash; its events list, lease and live channel hang off it. */
  recordPrefix: string;
  record(id: string): string;
  events(id: string): string;
  channel(id: string): string;
  lease(id: string): string;
  owner(owner: string): string;
  active(owner: string): string;
  finished(owner: string): string;
  idempotency(owner: string, k: string): string;
  seq: string;
  /** Ids of the executions adopted by some replica and not yet ended. */
  held: string;
  cancelChannel: string;
  inputChannel: string;
  /** BullMQ's prefix for the queue's keys. */
  bullPrefix: string;
}

/**
 * The keys of the execution store under `namespace`. Every one carries the same hash tag
 * (`{namespace}`), BullMQ's prefix included: on a Redis Cluster they all live in one slot, so
 * each Lua script (which also reads keys it derives from its arguments) and each MULTI that
 * writes a record with its job touches one slot, as Cluster requires.
 */
export function executionKeys(namespace = "toolnexus"): ExecutionKeys {
  const tag = `{${namespace}}`;
  const recordPrefix = `${tag}:x:`;
  return {
    recordPrefix,
    record: (id) => `${recordPrefix}${id}`,
    events: (id) => `${recordPrefix}${id}:events`,
    channel: (id) => `${recordPrefix}${id}:live`,
    lease: (id) => `${recordPrefix}${id}:lease`,
    owner: (owner) => `${tag}:owner:${owner}`,
    active: (owner) => `${tag}:active:${owner}`,
    finished: (owner) => `${tag}:finished:${owner}`,
    idempotency: (owner, k) => `${tag}:idem:${createHash("sha256").update(owner).update("\n").update(k).digest("hex")}`,
    seq: `${tag}:seq`,
    held: `${tag}:held`,
    cancelChannel: `${tag}:cancel`,
    inputChannel: `${tag}:input`,
    bullPrefix: tag,
  };
}

/** The Execution a record hash holds, when it exists and belongs to `owner`. */
export function toExecution(rec: Record<string, string> | undefined, owner: string): ExecutionT | undefined {
  if (!rec?.id || rec.owner !== owner) return undefined;
  return {
    id: rec.id,
    tool: rec.tool ?? "",
    status: rec.status as ExecutionStatusT,
    createdAt: rec.createdAt ?? "",
    updatedAt: rec.updatedAt ?? "",
    expiresAt: rec.expiresAt ?? "",
    ...(rec.progress ? { progress: JSON.parse(rec.progress) as Progress } : {}),
    ...(rec.inputs && rec.status === "input_required" ? { inputRequests: JSON.parse(rec.inputs) as ExecutionT["inputRequests"] } : {}),
    ...(rec.result ? { result: JSON.parse(rec.result) as ExecutionT["result"] } : {}),
    ...(rec.error ? { error: JSON.parse(rec.error) as ExecutionT["error"] } : {}),
  };
}

// A request never waits longer than this for Redis (503 within 10 s of an outage).
const STORE_TIMEOUT_MS = 5_000;

/** Any failure to reach Redis in time becomes 503 STORE_UNAVAILABLE; our own errors pass through. */
export async function store<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unavailable()), STORE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([p, timeout]);
  } catch (err) {
    if (err instanceof ToolnexusError) throw err;
    throw unavailable(err);
  } finally {
    clearTimeout(timer);
  }
}

/** 503 STORE_UNAVAILABLE, asking the client to come back in a few seconds. */
export function unavailable(cause?: unknown): ToolnexusError {
  return new ToolnexusError("STORE_UNAVAILABLE", "The execution store (Redis) cannot be reached; retry shortly", {
    cause,
    headers: { "retry-after": "5" },
  });
}

/**
 * Runs `step` until it succeeds, for a Redis step that an outage or a failover must not drop
 * (a run's start, its outcome): a failure is retried after 100 ms, doubling up to 1 s, as long
 * as the next try still starts within `withinMs`; then the last failure is thrown. The step
 * must be safe to repeat: a failed attempt may have been carried out, its reply lost.
 */
export async function persistently<T>(
  step: () => Promise<T>,
  withinMs: number,
  onRetry: (err: Error, attempt: number) => void,
): Promise<T> {
  const end = Date.now() + withinMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      const pause = Math.min(100 * 2 ** attempt, 1_000);
      if (Date.now() + pause > end) throw err;
      onRetry(err as Error, attempt);
      await new Promise((r) => setTimeout(r, pause));
    }
  }
}
