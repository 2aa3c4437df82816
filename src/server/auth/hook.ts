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
 * Reads the credential a session cookie carries (the operator console): undefined when the
 * request has none; throws UNAUTHORIZED for a forged or expired one, FORBIDDEN for a
 * state-changing request without its CSRF token or from another origin.
 */
export type SessionCredential = (request: FastifyRequest) => string | undefined;

/**
 * The onRequest step that sets `request.caller`, by the route's declared access
 * (http/route-policy.ts): probes are open, so is a route whose `publicWhen` holds (`/metrics`
 * with `metrics.public`), a public route (the portal) to a visitor without a credential (it
 * then shows the generic routes only), and operator routes need an operator. Callback style,
 * so an API-key request costs no promise; a JWT one waits for its verification.
 */
export function authenticateRequest(
  state: AuthState,
  request: FastifyRequest,
  done: HookHandlerDoneFunction,
  sessions?: SessionCredential,
): void {
  const { access, publicWhen, session } = policyOf(request);
  if (access === "probe") return done();
  if (publicWhen?.(state.loaded.config)) return done();
  let presented: string | undefined;
  // A route that takes the console's session: its cookie, unless a header credential is sent.
  if (session && sessions && !state.auth.presentsKey(request)) {
    try {
      presented = sessions(request);
    } catch (err) {
      // A public page (the console's own) shows its sign-in form to a session that ended.
      return access === "public" ? done() : done(err as Error);
    }
  }
  if (access === "public" && presented === undefined && !state.auth.presentsKey(request)) return done();
  // A session whose key was revoked meanwhile: on a public page, simply no caller.
  const fail = (err: Error): void => (access === "public" && presented !== undefined ? done() : done(err));
  const admit = (caller: Caller): void => {
    request.caller = caller;
    if (access === "operator" && !caller.operator) {
      return done(new ToolnexusError("FORBIDDEN", `${request.routeOptions.url ?? ""} is for operator callers only`));
    }
    done();
  };
  let result: Caller | Promise<Caller>;
  try {
    result = state.auth.authenticate(request, presented);
  } catch (err) {
    return fail(err as Error);
  }
  if (result instanceof Promise) result.then(admit, fail);
  else admit(result);
}
