import type { AuditCall } from "../../governance/audit-line.js";
import type { Tool } from "../../core/types.js";
import type { Outcome } from "../observability/metrics.js";
import { writeInfoLine } from "../observability/info-line.js";
import type { CallEnvelope } from "./envelope.js";
import type { CallOptions } from "./call-context.js";

// What every call leaves behind once it ended, whatever its transport and outcome: its audit
// line and its log line. Kept apart from the pipeline's steps, which decide the outcome.

/** How one call ended. */
export interface CallEnd {
  /** The name the caller asked for (the tool may not exist). */
  name: string;
  tool?: Tool;
  outcome: Outcome;
  statusCode: number;
  /** The call ended waiting for its caller's answer (a result with input requests). */
  pending: boolean;
  durationMs: number;
  traceId?: string;
}

/** The audit line of an ended call. */
export function auditCall(end: CallEnd, body: CallEnvelope, o: CallOptions): AuditCall {
  const { tool } = end;
  return {
    requestId: o.requestId,
    transport: o.transport,
    principal: o.caller.id,
    tool: end.name,
    arguments: body.arguments,
    outcome: end.outcome,
    status: end.statusCode,
    durationMs: end.durationMs,
    pending: end.pending,
    auth: o.caller.kind,
    policy: tool ? o.caller.allowedBy?.(tool.name) : undefined,
    traceId: end.traceId,
    source: tool?.source,
    ...(o.caller.bundle ? { bundle: o.caller.bundle } : {}),
  };
}

/**
 * Writes the call's "tool call" line at info: the principal (caller), how it authenticated
 * and the policy that let it in, with the outcome. The line's object is built only when it
 * will be written (a hot path at logLevel warn).
 */
export function logCall(end: CallEnd, o: CallOptions): void {
  if ((o.log as { isLevelEnabled?(level: string): boolean }).isLevelEnabled?.("info") === false) return;
  const line = callLine(end, o);
  if (!writeInfoLine(o.log, line, "tool call")) o.log.info(line, "tool call");
}

/**
 * The fields of a call's log line, in their order. Optional fields are added when present
 * rather than spread from a literal each: one object per line instead of five.
 */
function callLine(end: CallEnd, o: CallOptions): Record<string, unknown> {
  const { tool } = end;
  const line: Record<string, unknown> = { tool: end.name, source: tool?.source, caller: o.caller.id };
  if (o.caller.kind) line.auth = o.caller.kind;
  const policy = tool ? o.caller.allowedBy?.(tool.name) : undefined;
  if (policy) line.policy = policy;
  line.transport = o.transport;
  line.outcome = end.outcome;
  line.statusCode = end.statusCode;
  if (end.pending) line.pending = end.pending;
  line.durationMs = end.durationMs;
  if (end.traceId) line.traceId = end.traceId;
  return line;
}
