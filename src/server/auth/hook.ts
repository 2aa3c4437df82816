import type { FastifyRequest, HookHandlerDoneFunction } from "fastify";
import type { ToolnexusConfig } from "../../config/schema/index.js";
import { ToolnexusError } from "../../core/errors.js";
import { policyOf } from "../http/route-policy.js";
import type { Authenticator } from "./authenticator.js";
import type { Caller } from "./caller.js";

/** What the hook reads per request: the authenticator and config in service now (a reload swaps both). */
export interface AuthState {
  readonly auth: Authenticator;
  readonly loaded: { readonly config: ToolnexusConfig };
}

/**
 * The onRequest step that sets `request.caller`, by the route's declared access
 * (http/route-policy.ts): probes are open, so is a route whose `publicWhen` holds (`/metrics`
 * with `metrics.public`), a public route (the portal) to a visitor without a credential (it
 * then shows the generic routes only), and operator routes need an operator. Callback style,
 * so an API-key request costs no promise; a JWT one waits for its verification.
 */
export function authenticateRequest(state: AuthState, request: FastifyRequest, done: HookHandlerDoneFunction): void {
  const { access, publicWhen } = policyOf(request);
  if (access === "probe") return done();
  if (publicWhen?.(state.loaded.config)) return done();
  if (access === "public" && !state.auth.presentsKey(request)) return done();
  const admit = (caller: Caller): void => {
    request.caller = caller;
    if (access === "operator" && !caller.operator) {
      return done(new ToolnexusError("FORBIDDEN", `${request.routeOptions.url ?? ""} is for operator callers only`));
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
