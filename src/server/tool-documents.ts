import type { FastifyInstance } from "fastify";
import type { Caller } from "./auth/index.js";
import { toInfo, visibleTools } from "./routes/tools.js";
import type { ServiceState } from "./service-state.js";
import { withSecurity, withToolOperations } from "./tool-openapi.js";

/**
 * The OpenAPI documents a deployment serves, as scrubbed JSON text: the generic routes, and
 * per caller the generic routes plus one typed operation per tool it may use (DESIGN §7).
 * Cached per toolkit version and caller, so `/openapi.json` and the portal build each once.
 */
export class ToolDocuments {
  private readonly cache = new Map<string, string>();

  constructor(private readonly app: FastifyInstance, private readonly state: ServiceState, private readonly scrub: (s: string) => string) {}

  /** The document of the generic routes only (what an anonymous portal visitor sees). */
  generic(): string {
    return this.cached("generic", () => this.base());
  }

  /** The per-tool document of this caller. */
  forCaller(caller: Caller): string {
    const tk = this.state.toolkit();
    return this.cached(`${this.state.viewVersion(tk)}|${caller.viewKey ?? caller.id}`, () => withToolOperations(this.base(), visibleTools(this.state, caller).map(toInfo)));
  }

  /** The generic routes with the security this deployment really applies (DESIGN §13). */
  private base(): Record<string, unknown> {
    const authEnabled = this.state.auth.enabled;
    const publicMetrics = this.state.loaded.config.metrics?.public === true;
    return withSecurity(this.app.swagger() as Record<string, unknown>, { authEnabled, publicMetrics });
  }

  private cached(key: string, build: () => Record<string, unknown>): string {
    // A reload may turn auth or public metrics on or off: both are part of the document.
    key = `${key}|${this.state.auth.enabled}|${this.state.loaded.config.metrics?.public === true}`;
    let body = this.cache.get(key);
    if (body === undefined) {
      body = this.scrub(JSON.stringify(build()));
      if (this.cache.size > 64) this.cache.clear();
      this.cache.set(key, body);
    }
    return body;
  }
}
