import { randomUUID } from "node:crypto";
import type { PendingRequest, ToolResult } from "../types.js";

/** Fields of a PendingRequest a producer gives; `id` is generated when absent. */
export type PendingInput = Omit<PendingRequest, "id"> & { id?: string };

/**
 * A suspension: an `isError` result whose `metadata.pending` carries the request.
 * The REST caller resolves it out of band and calls again with `answer`.
 */
export function pending(req: PendingInput, output?: string): ToolResult {
  const request: PendingRequest = { ...req, id: req.id ?? randomUUID() };
  return { output: output ?? request.prompt, isError: true, metadata: { pending: request } };
}

/** A suspension of kind `authorization`: the caller must visit `url` (e.g. an OAuth login). */
export function authRequired(url: string, prompt?: string): ToolResult {
  const text = prompt ?? `Login required: ${url}`;
  return pending({ kind: "authorization", url, prompt: text }, text);
}

/** The PendingRequest a result carries, or undefined when it is not a suspension. */
export function pendingOf(result: ToolResult): PendingRequest | undefined {
  const p = result.metadata?.pending;
  if (typeof p !== "object" || p === null) return undefined;
  const r = p as Partial<PendingRequest>;
  return typeof r.id === "string" && typeof r.kind === "string" && typeof r.prompt === "string" ? (r as PendingRequest) : undefined;
}
