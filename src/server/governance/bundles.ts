import type { FastifyInstance, FastifyRequest, preHandlerHookHandler } from "fastify";
import { ToolnexusError } from "../../core/errors.js";
import type { Logger } from "../../core/types.js";
import { bundleView, isRefusal, unmatchedGlobs } from "../../governance/bundle-view.js";
import { ANONYMOUS, type Caller } from "../auth/index.js";
import type { McpConnector } from "../mcp/lazy-catalog.js";
import { mcpEndpoint } from "../mcp/transport/http-endpoint.js";
import { discoveryOf } from "../mcp/discovery.js";
import type { ServiceState } from "../service/service-state.js";
import { SURFACE_VIEWS } from "../surface/routes.js";

const CODES = { invalid: "INVALID_REQUEST", unknown: "NOT_FOUND", forbidden: "FORBIDDEN" } as const;

/** The caller seen through bundle `name`; INVALID_REQUEST, NOT_FOUND or FORBIDDEN when it may not be. */
function bundleCaller(state: ServiceState, caller: Caller, name: string): Caller {
  const view = bundleView(caller, name, state.loaded.config.bundles);
  if (isRefusal(view)) throw new ToolnexusError(CODES[view.kind], view.message);
  return view;
}

/**
 * Bundles (virtual servers): `/bundles/{name}/mcp` is the MCP endpoint of one bundle, the same
 * pipeline as `/mcp` with the caller narrowed (the catalog views' `?bundle=` is
 * {@link narrowViewsToBundles}). A bundle glob that matches no tool is a warning at each load
 * and reload.
 */
export async function registerBundles(
  app: FastifyInstance,
  o: { state: ServiceState; mcp: McpConnector; scrub: (s: string) => string; log: Logger },
): Promise<void> {
  const { state } = o;
  state.onToolkit((tk) => {
    const names = tk.tools().map((t) => t.name);
    for (const { bundle, glob } of unmatchedGlobs(state.loaded.config.bundles ?? {}, names)) {
      o.log.warn({ bundle, glob }, "bundle glob matches no tool (a typo, or a tool of a source that failed to load)");
    }
  });
  // As `/mcp`: served or not by the config the service started with.
  if (!state.loaded.config.server.mcp.enabled) return;
  await app.register(async (scope) => {
    scope.addHook("preHandler", (request, _reply, done) => narrow(state, request, (request.params as { bundle: string }).bundle, done));
    await scope.register(mcpEndpoint, {
      catalog: o.mcp,
      path: "/bundles/:bundle/mcp",
      scrub: o.scrub,
      // Each bundle says its own discovery (read per request: a reload may change it).
      discovery: (request) => discoveryOf(state.loaded.config.bundles?.[(request.params as { bundle: string }).bundle]),
    });
  });
}

/**
 * `GET /tools?bundle=`, `/openapi.json?bundle=` and the other catalog views narrow the caller
 * to the bundle before the route runs: a preHandler of those routes only, added as they
 * register (so call before them), where a hook of every route cost each tool call one more
 * step of Fastify's hook runner.
 */
export function narrowViewsToBundles(app: FastifyInstance, state: ServiceState): void {
  const narrowToBundle: preHandlerHookHandler = (request, _reply, done) => {
    const bundle = (request.query as { bundle?: unknown } | undefined)?.bundle;
    if (bundle === undefined) return done();
    // A portal visitor without a key has no caller. With keys configured it sees the generic
    // routes only anyway; without, the portal shows the anonymous caller's tools: narrow those.
    if (!request.caller) {
      if (state.auth.enabled) return done();
      request.caller = ANONYMOUS;
    }
    narrow(state, request, String(bundle), done);
  };
  app.addHook("onRoute", (route) => {
    if (!VIEWS.has(route.url)) return;
    const own = route.preHandler === undefined ? [] : [route.preHandler].flat();
    // First of the route's own, as an app-wide hook would run; a new array, so a HEAD route
    // made from the GET one's options gets it once.
    if (!own.includes(narrowToBundle)) route.preHandler = [narrowToBundle, ...own];
  });
}

// The catalog views a `?bundle=` narrows: the listing, the document, the portal's document, and the MCP surface's routes.
const VIEWS = new Set(["/tools", "/openapi.json", "/docs/json", ...SURFACE_VIEWS]);

function narrow(state: ServiceState, request: FastifyRequest, name: string, done: (err?: Error) => void): void {
  try {
    request.caller = bundleCaller(state, request.caller, name);
    done();
  } catch (err) {
    done(err as Error);
  }
}
