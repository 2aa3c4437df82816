// The services buildServer builds once and hands to each feature registration: one object
// instead of a different list of loose values per registrar. Each registrar declares the
// part it needs as its own options type (a folder never imports this composition-root file),
// so a new feature takes what is here and a test can hand it just that part.
import type { FastifyBaseLogger } from "fastify";
import type { AuditLog } from "../governance/audit-log.js";
import type { CallPipeline } from "./calls/call-pipeline.js";
import type { CatalogViews } from "./catalog/view.js";
import type { ConsoleSessions } from "./console/session.js";
import type { registerExecutions } from "./executions/register.js";
import type { PinGuard } from "./governance/pin-guard.js";
import type { DeclaredPolicies } from "./http/route-policy.js";
import type { Metrics } from "./observability/metrics.js";
import type { ToolDocuments } from "./openapi/tool-documents.js";
import type { ServiceState } from "./service/service-state.js";
import type { RedisClient, RedisHealth } from "./redis/connect-redis.js";

/** What the routes of the service share (see buildServer). */
export interface Services {
  /** The config in service, the toolkit, the auth, the sealer, the calls in flight. */
  state: ServiceState;
  /** Removes the config's secret values from text. */
  scrub: (text: string) => string;
  log: FastifyBaseLogger;
  metrics: Metrics;
  /** The audit trail, when `audit:` is configured. */
  audit?: AuditLog;
  /** The operator console's sessions (the auth hook takes their cookie). */
  sessions: ConsoleSessions;
  /** Tool-definition pinning. */
  pins: PinGuard;
  /** The connection to the Redis several replicas share, when `redis:` is set. */
  redis?: RedisClient;
  /** How the connection sees Redis now (`/readyz`), when `redis:` is set. */
  redisHealth?: () => RedisHealth | undefined;
  /** What the routes declare (http/route-policy.ts). */
  policies: DeclaredPolicies;
  /** One view of the catalog per caller. */
  views: CatalogViews;
  /** The execute pipeline every transport runs calls through. */
  pipeline: CallPipeline;
  /** The caller's OpenAPI documents. */
  documents: ToolDocuments;
  /** `server.heartbeatMs`, read per stream (a reload may change it). */
  heartbeatMs: () => number;
  /** The execution store, its promotion of held calls, its close. */
  executions: Awaited<ReturnType<typeof registerExecutions>>;
}
