import type { DestinationStream } from "pino";
import { AuditLog, type AuditSettings } from "../../governance/audit-log.js";
import type { Logger } from "../../core/types.js";
import { stdoutDestination } from "../observability/logger.js";
import type { ServiceState } from "../service/service-state.js";

/**
 * The audit trail of a server when `audit:` is configured at start-up, else undefined. Its
 * sink (stdout or the file) is fixed for the process; how arguments appear follows reloads.
 * Throws when the audit file cannot be opened: the service does not start unaudited.
 */
export function createAudit(state: ServiceState, scrub: (s: string) => string, log: Logger, out?: DestinationStream): AuditLog | undefined {
  const initial = state.loaded.config.audit;
  if (!initial) return undefined;
  const settings = (): AuditSettings => ({
    ...initial,
    ...(state.loaded.config.audit ?? {}),
    sink: initial.sink,
    ...(initial.path ? { path: initial.path } : {}),
  });
  return new AuditLog(settings, scrub, log, out ?? stdoutDestination());
}
