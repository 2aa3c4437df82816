import type { FastifyInstance, onResponseHookHandler } from "fastify";
import { authenticateRequest, type SessionCredential } from "../auth/index.js";
import { logRejected, sendProblem } from "../http/error-handler.js";
import type { HostGuard } from "../http/host-guard.js";
import { hostlessRequestError } from "../http/protocol-errors.js";
import { bindRequestLogger } from "../http/request-logger.js";
import { policyOf } from "../http/route-policy.js";
import type { ServiceState } from "./service-state.js";

/**
 * The hooks every request passes: one onRequest hook binds the request's logger, sets the
 * request id, applies the Host guard and authenticates (each hook is one more step of Fastify's
 * hook runner on every request); one onResponse hook on every route but those that write their
 * own line (`ownLine`, the execute route's "tool call") logs a refused request (and, at debug,
 * every other one). A route with no onResponse hook spares each response two listeners
 * (fastify-options.ts). Call before the routes are added.
 */
export function installRequestHooks(
  app: FastifyInstance,
  state: ServiceState,
  hostGuard: HostGuard,
  scrub: (text: string) => string,
  sessions: SessionCredential,
): void {
  const root = app.log;
  app.addHook("onRequest", (request, reply, done) => {
    bindRequestLogger(request, reply, root);
    reply.header("x-request-id", request.id);
    // Read once: `request.headers` is a getter.
    const { headers } = request;
    const refused =
      hostlessRequestError(request) ??
      // The probes are exempt from the Host guard: they reveal nothing, and a kubelet or a
      // container health check sends whatever Host it has (its pod IP and port).
      (policyOf(request).access === "probe" ? undefined : hostGuard.check(state.loaded.config.server, headers.host, headers.origin));
    if (refused) return sendProblem(reply, request, refused, scrub);
    authenticateRequest(state, request, done, sessions);
  });
  const logResponse = responseLogger(root.level === "debug" || root.level === "trace");
  app.addHook("onRoute", (route) => {
    if (route.config?.ownLine) return;
    const own = route.onResponse === undefined ? [] : [route.onResponse].flat();
    // A new array, so a HEAD route made from the GET one's options gets it once.
    if (!own.includes(logResponse)) route.onResponse = [logResponse, ...own];
  });
}

/** The onResponse hook that logs a refused request and, when `timeRequests`, every other one. */
function responseLogger(timeRequests: boolean): onResponseHookHandler {
  return (request, reply, done) => {
    // Most requests log nothing here: answer those before reading anything else.
    if (reply.statusCode < 400 && !timeRequests) return done();
    if (reply.statusCode >= 400) {
      logRejected(request, reply.statusCode);
    } else {
      // At debug every other request says how long it took (on /mcp, which method it was): what
      // an operator needs to find the one slow request behind a stalled client.
      const mcpMethod = request.headers["mcp-method"];
      const durationMs = Math.round(reply.elapsedTime * 10) / 10;
      const { method, url } = request;
      request.log.debug({ method, url, mcpMethod, statusCode: reply.statusCode, durationMs }, "request completed");
    }
    done();
  };
}
