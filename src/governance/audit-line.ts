import { canonicalDigest } from "./canonical-json.js";
import { redactArguments } from "./redact.js";

/** How arguments appear in an audit line: a digest (default), masked, or as sent. */
export type AuditArguments = "digest" | "redacted" | "full";

/** What the call pipeline knows about one finished call. */
export interface AuditCall {
  requestId: string;
  traceId?: string;
  transport: string;
  /** The principal: the API key id or the JWT subject. */
  principal: string;
  /** How the principal authenticated (apiKey, jwt, anonymous). */
  auth?: string;
  /** The policy that let a JWT caller use the tool. */
  policy?: string;
  /** The tool name as asked for (the tool may not exist). */
  tool: string;
  source?: string;
  arguments: unknown;
  outcome: string;
  status: number;
  durationMs: number;
  /** The call suspended, waiting for an answer. */
  pending?: boolean;
  /** The bundle the call came through (`/bundles/{name}/mcp`). */
  bundle?: string;
}

/** The options of {@link auditLine}. */
export interface AuditLineOptions {
  arguments: AuditArguments;
  /** Extra argument keys masked in `redacted` mode. */
  redactKeys?: readonly string[];
  /** The time of the line; now when absent. */
  now?: Date;
}

/**
 * One audit record as a JSON line (with its newline). Field order is fixed so lines diff and
 * grep well. Secrets configured with `${VAR}` are removed by the writer, not here.
 */
export function auditLine(call: AuditCall, o: AuditLineOptions): string {
  const args = call.arguments ?? {};
  const record = {
    time: (o.now ?? new Date()).toISOString(),
    type: "audit",
    requestId: call.requestId,
    ...(call.traceId ? { traceId: call.traceId } : {}),
    transport: call.transport,
    principal: call.principal,
    ...(call.auth ? { auth: call.auth } : {}),
    ...(call.policy ? { policy: call.policy } : {}),
    ...(call.bundle ? { bundle: call.bundle } : {}),
    tool: call.tool,
    ...(call.source ? { source: call.source } : {}),
    argumentsDigest: `sha256:${canonicalDigest(args)}`,
    ...(o.arguments === "full"
      ? { arguments: args }
      : o.arguments === "redacted"
        ? { arguments: redactArguments(args, o.redactKeys) }
        : {}),
    outcome: call.outcome,
    status: call.status,
    ...(call.pending ? { pending: true } : {}),
    durationMs: call.durationMs,
  };
  return `${JSON.stringify(record)}\n`;
}
