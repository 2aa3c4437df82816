import type { FastifyInstance } from "fastify";
import type { Sealer } from "../../core/seal.js";
import type { AuthState } from "../auth/hook.js";
import type { ExecutionStore } from "../executions/engine/store.js";
import type { Metrics } from "../observability/metrics.js";
import { consoleApiRoutes, consoleAuditRoutes } from "./api-routes.js";
import { AuditTail, type AuditSource } from "./audit-tail.js";
import { CONSOLE_SCHEMAS } from "./schemas.js";
import type { ConsoleSessions } from "./session.js";
import { consolePageRoutes } from "./session-routes.js";

/** What the console reads: the service's auth and sealer, the execution store, the metrics and the audit trail. */
export interface ConsoleOptions {
  state: AuthState & { readonly sealer: Sealer };
  /** The operator console's sessions (the auth hook takes their cookie). */
  sessions: ConsoleSessions;
  executions: { store: ExecutionStore };
  metrics: Metrics;
  /** The audit trail, when `audit:` is configured. */
  audit?: AuditSource;
  scrub: (s: string) => string;
  heartbeatMs: () => number;
}

/**
 * The operator console at `GET /admin` (docs/operating.md): its page, script and sign-in, and
 * the read APIs it needs beyond `/status` and `/admin/pins`. The audit tail starts following
 * the audit trail here, so it holds the lines written from now on.
 */
export async function registerConsole(app: FastifyInstance, o: ConsoleOptions): Promise<void> {
  for (const schema of CONSOLE_SCHEMAS) app.addSchema(schema);
  const audit = new AuditTail(o.audit);
  app.addHook("onClose", async () => audit.close());
  await app.register(consolePageRoutes, { state: o.state, sessions: o.sessions });
  await app.register(consoleApiRoutes, { store: o.executions.store, metrics: o.metrics, scrub: o.scrub });
  await app.register(consoleAuditRoutes, { audit, heartbeatMs: o.heartbeatMs });
}
