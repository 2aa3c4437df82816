import { createHash } from "node:crypto";
import { ToolnexusError } from "../../../core/errors.js";
import type { Progress } from "../../../core/types.js";
import type { ExecutionStatusT, ExecutionT } from "../schemas.js";

/** Prefix of an execution's record hash; its events list and live channel hang off it. */
export const RECORD_PREFIX = "toolnexus:x:";

/** The Redis keys of the execution store. An owner id is hashed where it meets a caller-chosen key. */
export const key = {
  record: (id: string) => `${RECORD_PREFIX}${id}`,
  events: (id: string) => `${RECORD_PREFIX}${id}:events`,
  channel: (id: string) => `${RECORD_PREFIX}${id}:live`,
  owner: (owner: string) => `toolnexus:owner:${owner}`,
  active: (owner: string) => `toolnexus:active:${owner}`,
  finished: (owner: string) => `toolnexus:finished:${owner}`,
  idempotency: (owner: string, k: string) => `toolnexus:idem:${createHash("sha256").update(owner).update("\n").update(k).digest("hex")}`,
  seq: "toolnexus:seq",
};

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
