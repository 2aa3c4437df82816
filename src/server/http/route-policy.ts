import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from "fastify";
import type { ToolnexusConfig } from "../../config/schema/index.js";

/**
 * Who may call a route (docs/architecture.md, "Route policy"):
 * - `probe`: anyone, never authenticated, never rate-limited nor shed (probes must see the truth);
 * - `public`: anyone; a credential that is presented is still checked and names the caller;
 * - `caller`: an authenticated caller (everyone when no auth is configured), the default;
 * - `operator`: an authenticated caller with `operator: true`.
 */
type Access = "probe" | "public" | "caller" | "operator";

/** What a route declares in its Fastify `config`; the hooks (auth, limits, tracing) read it. */
export interface RoutePolicy {
  access: Access;
  /** False for routes polled by probes and scrapers: a span each would drown the traces that matter. */
  traced: boolean;
  /** Open to anyone (as `probe`, but counted and shed) while this holds of the config served now. */
  publicWhen?: (config: ToolnexusConfig) => boolean;
  /** Also accepts the operator console's session cookie as the credential (console/session.ts). */
  session?: boolean;
}

declare module "fastify" {
  interface FastifyContextConfig {
    access?: Access;
    traced?: boolean;
    publicWhen?: (config: ToolnexusConfig) => boolean;
    session?: boolean;
    /** The route writes its own line per request (the execute route's "tool call"): it gets no "request rejected" line. */
    ownLine?: boolean;
  }
  interface FastifyRequest {
    /** The request's policy once {@link policyOf} resolved it (null before). */
    routePolicy: RoutePolicy | null;
  }
}

/** The policy of a route that declares none: callers only, traced. */
const DEFAULT: RoutePolicy = { access: "caller", traced: true };

/**
 * The policy of the route a request was routed to: what it declares, else the default (also
 * for a 404, which has no route). Probe and public routes are matched by the router, so
 * `/healthz?x` and `/healthz#x` are the probe and `/healthz/` is not, for every hook alike.
 */
export function policyOf(request: FastifyRequest): RoutePolicy {
  // Resolved once per request: several hooks ask, and each read of `routeOptions` builds a
  // new object of the route's options.
  return (request.routePolicy ??= routePolicyOf(request));
}

function routePolicyOf(request: FastifyRequest): RoutePolicy {
  // A 404 has a route context of its own whose config may be absent.
  const config = request.routeOptions.config as FastifyContextConfig | undefined;
  if (config?.access === undefined && config?.traced === undefined) return DEFAULT;
  // A route declares both keys, so this is its own object, not a copy per request.
  if (config.access !== undefined && config.traced !== undefined) return config as RoutePolicy;
  return { ...DEFAULT, ...config } as RoutePolicy;
}

/**
 * What the routes of `app` declare, recorded as they register (an onRoute hook), for what
 * must know a policy outside any request: the OpenAPI document says which operations need no
 * credential.
 */
export class DeclaredPolicies {
  private readonly conditional: { path: string; publicWhen: (config: ToolnexusConfig) => boolean }[] = [];

  /** Records every route registered on `app` from now on. */
  constructor(app: FastifyInstance) {
    // Declared, so that every request has the slot {@link policyOf} fills from the start.
    app.decorateRequest("routePolicy", null);
    app.addHook("onRoute", (route) => {
      const publicWhen = route.config?.publicWhen;
      if (publicWhen && !this.conditional.some((c) => c.path === route.url)) this.conditional.push({ path: route.url, publicWhen });
    });
  }

  /** The routes (OpenAPI paths) whose `publicWhen` holds under `config`: open to anyone now. */
  openUnder(config: ToolnexusConfig): string[] {
    return this.conditional.filter((c) => c.publicWhen(config)).map((c) => c.path.replace(/:(\w+)/g, "{$1}"));
  }
}
