import type { AuditCall } from "../../governance/audit-line.js";
import type { Tool } from "../../core/types.js";
import type { Outcome } from "../observability/metrics.js";
import { writeInfoLine } from "../observability/info-line.js";
import { jsonString, jsonTenths } from "../observability/json-text.js";
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
 * and the policy that let it in, with the outcome. Nothing of it is built at logLevel warn (a
 * hot path).
 */
export function logCall(end: CallEnd, o: CallOptions): void {
  if ((o.log as { isLevelEnabled?(level: string): boolean }).isLevelEnabled?.("info") === false) return;
  const policy = end.tool ? o.caller.allowedBy?.(end.tool.name) : undefined;
  if (!writeInfoLine(o.log, { keys: CALL_KEYS, members: callMembers(end, o, policy) }, "tool call")) {
    o.log.info(callLine(end, o, policy), "tool call");
  }
}

// Every key of a call's line, in its order.
const CALL_KEYS = ["tool", "source", "caller", "auth", "policy", "transport", "outcome", "statusCode", "pending", "durationMs", "traceId"];

/**
 * The fields of a call's log line, in their order, for a logger that writes them itself.
 * Optional fields are added when present rather than spread from a literal each.
 */
function callLine(end: CallEnd, o: CallOptions, policy: string | undefined): Record<string, unknown> {
  const line: Record<string, unknown> = { tool: end.name, source: end.tool?.source, caller: o.caller.id };
  if (o.caller.kind) line.auth = o.caller.kind;
  if (policy) line.policy = policy;
  line.transport = o.transport;
  line.outcome = end.outcome;
  line.statusCode = end.statusCode;
  if (end.pending) line.pending = end.pending;
  line.durationMs = end.durationMs;
  if (end.traceId) line.traceId = end.traceId;
  return line;
}

/** {@link callLine} as JSON object members, the bytes JSON.stringify would write, from the quoted strings kept of repeated values. */
function callMembers(end: CallEnd, o: CallOptions, policy: string | undefined): string {
  let text = headMembers(end, o, policy);
  if (end.pending) text += `,"pending":true`;
  text += `,"durationMs":${jsonTenths(end.durationMs)}`;
  if (end.traceId) text += `,"traceId":${JSON.stringify(end.traceId)}`;
  return text;
}

/** The members a known tool's last line began with, and what they were made of. */
interface KeptHead {
  callerId: string;
  kind: string | undefined;
  policy: string | undefined;
  transport: string;
  outcome: string;
  statusCode: number;
  text: string;
}

// One per tool: the members up to the status code of its last line. Consecutive calls of a tool
// mostly repeat them, and a line made of fewer, longer pieces is cheaper to join, flatten and
// write: each piece is one more step for V8 (bench/history/2026-12-07-execute-path.md).
const HEADS = new WeakMap<Tool, KeptHead>();

/** The members from `tool` to `statusCode`, as one flat text: the last line's of the tool when they are the same. */
function headMembers(end: CallEnd, o: CallOptions, policy: string | undefined): string {
  const { tool } = end;
  // Only a known tool's text is kept: a name the caller made up is quoted once and dropped.
  if (tool?.name !== end.name) return headText(end, o, policy);
  const { id, kind } = o.caller;
  const kept = HEADS.get(tool);
  if (
    kept?.callerId === id &&
    kept.kind === kind &&
    kept.policy === policy &&
    kept.transport === o.transport &&
    kept.outcome === end.outcome &&
    kept.statusCode === end.statusCode
  ) {
    return kept.text;
  }
  const text = headText(end, o, policy);
  HEADS.set(tool, { callerId: id, kind, policy, transport: o.transport, outcome: end.outcome, statusCode: end.statusCode, text });
  return text;
}

function headText(end: CallEnd, o: CallOptions, policy: string | undefined): string {
  const { tool } = end;
  const parts = [`,"tool":`, tool?.name === end.name ? jsonString(end.name) : JSON.stringify(end.name)];
  if (tool?.source !== undefined) parts.push(`,"source":`, jsonString(tool.source));
  parts.push(`,"caller":`, jsonString(o.caller.id));
  if (o.caller.kind) parts.push(`,"auth":`, jsonString(o.caller.kind));
  if (policy) parts.push(`,"policy":`, jsonString(policy));
  parts.push(`,"transport":`, jsonString(o.transport), `,"outcome":`, jsonString(end.outcome), `,"statusCode":${end.statusCode}`);
  // One flat string (join copies; `+` would keep every piece).
  return parts.join("");
}
