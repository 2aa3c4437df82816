import type { FastifyInstance } from "fastify";
import { authenticateRequest, type SessionCredential } from "../auth/index.js";
import { sendProblem } from "../http/error-handler.js";
import type { HostGuard } from "../http/host-guard.js";
import { hostlessRequestError } from "../http/protocol-errors.js";
import { policyOf } from "../http/route-policy.js";
import type { ServiceState } from "./service-state.js";

/**
 * The hooks every request passes: one onRequest hook sets the request id, applies the Host
 * guard and authenticates (each hook is one more step of Fastify's hook runner on every
 * request); one onResponse hook logs a refused request (and, at debug, every other one).
 */
export function installRequestHooks(
  app: FastifyInstance,
  state: ServiceState,
  hostGuard: HostGuard,
  scrub: (text: string) => string,
  sessions: SessionCredential,
): void {
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    const refused =
      hostlessRequestError(request) ??
      // The probes are exempt from the Host guard: they reveal nothing, and a kubelet or a
      // container health check sends whatever Host it has (its pod IP and port).
      (policyOf(request).access === "probe"
        ? undefined
        : hostGuard.check(state.loaded.config.server, request.headers.host, request.headers.origin));
    if (refused) return sendProblem(reply, request, refused, scrub);
    authenticateRequest(state, request, done, sessions);
  });
  const timeRequests = app.log.level === "debug" || app.log.level === "trace";
  app.addHook("onResponse", (request, reply, done) => {
    // Most requests log nothing here: answer those before reading the route (a new object per read).
    if (reply.statusCode < 400 && !timeRequests) return done();
    // A REST tool call has its own line ("tool call", with its duration).
    if (request.routeOptions.url === "/tools/:name/execute") return done();
    const { method, url } = request;
    if (reply.statusCode >= 400) {
      request.log.info({ method, url, statusCode: reply.statusCode }, "request rejected");
    } else if (timeRequests) {
      // At debug every other request says how long it took (on /mcp, which method it was): what
      // an operator needs to find the one slow request behind a stalled client.
      const mcpMethod = request.headers["mcp-method"];
      const durationMs = Math.round(reply.elapsedTime * 10) / 10;
      request.log.debug({ method, url, mcpMethod, statusCode: reply.statusCode, durationMs }, "request completed");
    }
    done();
  });
}
