import { Type } from "../http/typebox-lite.js";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { ToolnexusError } from "../../core/errors.js";
import { ProblemResponse as problem, sseEvent } from "../http/schemas/common.js";
import { openSse } from "../calls/sse.js";
import { Execution, ExecutionParams } from "../executions/schemas.js";
import type { ExecutionStore } from "../executions/engine/store.js";
import type { Metrics } from "../observability/metrics.js";
import { scrubDeep } from "../observability/scrub-deep.js";
import type { AuditTail } from "./audit-tail.js";
import { AuditTail as AuditTailSchema, OwnedExecutionList, OwnedExecutionQuery, ToolMetrics } from "./schemas.js";

/** What the console's read APIs read. */
export interface ConsoleApiOptions {
  store: ExecutionStore;
  metrics: Metrics;
  scrub: (s: string) => string;
}

/** What the console's audit routes read. */
export interface ConsoleAuditOptions {
  audit: AuditTail;
  heartbeatMs: () => number;
}

// Operators only; the console's session cookie is taken as well as a header credential.
const OPERATOR = { access: "operator", traced: true, session: true } as const;

/**
 * The small read APIs the operator console needs beyond `/status` and `/admin/pins`: calls
 * and errors per tool, every owner's executions (paged) and their cancel. Each is an
 * ordinary operator route, usable with an operator key too.
 */
export const consoleApiRoutes: FastifyPluginAsyncTypebox<ConsoleApiOptions> = async (app, { store, metrics, scrub }) => {
  app.get(
    "/admin/metrics",
    {
      config: OPERATOR,
      schema: {
        operationId: "consoleToolMetrics",
        summary: "Calls and failed calls per tool since the start, busiest first (operators only)",
        tags: ["admin"],
        response: { 200: Type.Ref(ToolMetrics), "4xx": problem },
      },
    },
    async () => ({ tools: await metrics.perTool() }),
  );

  app.get(
    "/admin/executions",
    {
      config: OPERATOR,
      schema: {
        operationId: "listAllExecutions",
        summary: "Every caller's executions and MCP tasks, newest first, with their owner (operators only)",
        tags: ["admin"],
        querystring: OwnedExecutionQuery,
        response: { 200: Type.Ref(OwnedExecutionList), "4xx": problem, "5xx": problem },
      },
    },
    async (request) => {
      const { state = "active", limit = 50, cursor } = request.query;
      const page = await store.listAll({ active: state === "active", limit, ...(cursor ? { cursor } : {}) });
      // Errors and results come from upstreams: scrub known secrets on the way out.
      return scrubDeep(page, scrub);
    },
  );

  app.post(
    "/admin/executions/:id/cancel",
    {
      config: OPERATOR,
      schema: {
        operationId: "cancelAnyExecution",
        summary: "Cancel any caller's execution or task (operators only); a finished one is returned unchanged",
        tags: ["admin"],
        params: ExecutionParams,
        response: { 200: Type.Ref(Execution), "4xx": problem, "5xx": problem },
      },
    },
    async (request) => {
      const { id } = request.params;
      const owner = await store.ownerOf(id);
      const execution = owner === undefined ? undefined : await store.cancel(owner, id);
      if (!execution) throw new ToolnexusError("EXECUTION_NOT_FOUND", "No such execution (unknown or expired)");
      request.log.info({ execution: id, owner, by: request.caller.id }, "execution cancelled by an operator");
      return scrubDeep(execution, scrub);
    },
  );
};

/**
 * The audit tail of this replica for the console: the recent lines, and the live stream of
 * lines as they are written.
 */
export const consoleAuditRoutes: FastifyPluginAsyncTypebox<ConsoleAuditOptions> = async (app, { audit, heartbeatMs }) => {
  app.get(
    "/admin/audit",
    {
      config: OPERATOR,
      schema: {
        operationId: "consoleAuditTail",
        summary: "The most recent audit lines of this replica, oldest first (operators only)",
        tags: ["admin"],
        response: { 200: Type.Ref(AuditTailSchema), "4xx": problem },
      },
    },
    async () => ({ enabled: audit.enabled, lines: audit.lines() }),
  );

  app.get(
    "/admin/audit/events",
    {
      config: OPERATOR,
      schema: {
        operationId: "consoleAuditEvents",
        summary: "The audit lines of this replica as they are written (Server-Sent Events; operators only)",
        tags: ["admin"],
        response: {
          200: {
            description: "text/event-stream",
            content: {
              "text/event-stream": {
                schema: sseEvent(["audit"], "Server-sent events: one `audit` event (`{ seq, line }`) per audit line, `id:` its seq."),
              },
            },
          },
          "4xx": problem,
        },
      },
    },
    async (_request, reply) => {
      const sse = openSse(reply, heartbeatMs());
      const stop = audit.follow((e) => sse.send("audit", e, e.seq));
      const end = () => {
        stop();
        sse.close();
        open.delete(end);
      };
      open.add(end);
      sse.onClientClose(end);
    },
  );

  // A tail never ends by itself: the service's close ends them, or they would hold it open.
  const open = new Set<() => void>();
  app.addHook("preClose", (done) => {
    for (const end of [...open]) end();
    done();
  });
};
