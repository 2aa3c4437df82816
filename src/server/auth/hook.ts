import type { FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { ToolnexusError } from "../../core/errors.js";
import { isPortalPath } from "../portal/portal.js";
import type { ServiceState } from "../service-state.js";
import type { Caller } from "./caller.js";

/** Routes only an operator caller may read once auth is configured; every `/admin/` route too. */
const OPERATOR_ONLY = new Set(["/status", "/metrics"]);

/**
 * The onRequest step that sets `request.caller`: probes are open, `/metrics` too when
 * `metrics.public`, the portal to a visitor without a credential (it then shows the generic
 * routes only), `/status` and `/metrics` need an operator. Callback style, so an API-key
 * request costs no promise; a JWT one waits for its verification.
 */
export function authenticateRequest(state: ServiceState, request: FastifyRequest, done: HookHandlerDoneFunction): void {
  // The router stops at "?" and "#" alike: so must the path every rule here is matched on
  // (`/status#x` is routed to /status). The matched route, when there is one, is the truth.
  const path = request.routeOptions.url ?? request.url.split(/[?#]/, 1)[0] ?? "";
  if (path === "/healthz" || path === "/readyz") return done();
  const isPublic = path === "/metrics" && state.loaded.config.metrics?.public === true;
  if (isPublic) return done();
  if (isPortalPath(path) && !state.auth.presentsKey(request)) return done();
  const admit = (caller: Caller): void => {
    request.caller = caller;
    if ((OPERATOR_ONLY.has(path) || path.startsWith("/admin/")) && !caller.operator) {
      return done(new ToolnexusError("FORBIDDEN", `${path} is for operator callers only`));
    }
    done();
  };
  let result: Caller | Promise<Caller>;
  try {
    result = state.auth.authenticate(request);
  } catch (err) {
    return done(err as Error);
  }
  if (result instanceof Promise) result.then(admit, (err: Error) => done(err));
  else admit(result);
}
