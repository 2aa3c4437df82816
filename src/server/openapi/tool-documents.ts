import type { FastifyInstance } from "fastify";
import type { ToolInfo } from "../../core/types.js";
import { ANONYMOUS, type Caller } from "../auth/index.js";
import { toInfo, type CatalogViews } from "../catalog/view.js";
import type { DeclaredPolicies } from "../http/route-policy.js";
import type { ServiceState } from "../service/service-state.js";
import { withSurfaceTags, type SurfaceListing } from "./portal-surface.js";
import { withSecurity, withToolOperations } from "./tool-openapi.js";

/** What an anonymous portal visitor of a deployment with keys reads above the generic routes. */
const SIGN_IN = "**Sign in with a key to see the tools it may use**: click Authorize and paste an API key (or a token).";

/**
 * The OpenAPI documents a deployment serves, as scrubbed JSON text: the generic routes, and
 * per caller the generic routes plus one typed operation per tool it may use.
 * A caller's document is a form of its catalog view (catalog/view.ts), so `/openapi.json` and
 * the portal build it once per catalog version and caller.
 */
export class ToolDocuments {
  private readonly generics = new Map<string, string>();

  constructor(
    private readonly app: FastifyInstance,
    private readonly state: ServiceState,
    private readonly views: CatalogViews,
    private readonly policies: DeclaredPolicies,
    private readonly scrub: (s: string) => string,
  ) {}

  /** The document of the generic routes only (what an anonymous portal visitor sees). */
  generic(): string {
    const key = this.settings();
    let body = this.generics.get(key);
    if (body === undefined) {
      body = this.serialize(this.base());
      this.generics.set(key, body);
    }
    return body;
  }

  /** The per-tool document of this caller. */
  forCaller(caller: Caller): string {
    const view = this.views.of(caller);
    const tk = this.state.toolkit();
    // The body is required exactly when the server refuses a call without one: `{}` fails the schema.
    const needsArguments = (info: ToolInfo) => {
      const tool = tk.get(info.name);
      if (!tool) return false;
      try {
        tk.validate(tool, {});
        return false;
      } catch {
        return true;
      }
    };
    return view.form(`openapi|${this.settings()}`, () =>
      this.serialize(withToolOperations(this.base(), view.tools.map(toInfo), needsArguments)),
    );
  }

  /**
   * The portal's document (`/docs/json`): the caller's when the request brought a credential;
   * without one, every tool when no credential is configured (everyone is then the anonymous
   * caller, as on `/openapi.json`), else the generic routes only.
   */
  forPortal(caller: Caller | null, listing?: SurfaceListing): string {
    const whose = this.portalCaller(caller);
    if (!whose) return this.signInFirst();
    const doc = this.forCaller(whose);
    // Not kept: the servers' lists change without a new catalog version, and the portal is rarely opened.
    return listing ? this.serialize(withSurfaceTags(JSON.parse(doc) as Record<string, unknown>, listing)) : doc;
  }

  /** Whose tools the portal shows: the caller's, everyone's (the anonymous caller) without credentials configured, else none. */
  portalCaller(caller: Caller | null): Caller | undefined {
    if (caller) return caller;
    return this.state.auth.enabled ? undefined : ANONYMOUS;
  }

  /** The generic document, saying at its top that Authorize with a key shows that key's tools. */
  private signInFirst(): string {
    const key = `portal|${this.settings()}`;
    let body = this.generics.get(key);
    if (body === undefined) {
      const doc = this.base() as { info?: { description?: string } };
      doc.info = { ...doc.info, description: `${SIGN_IN}${doc.info?.description ? `\n\n${doc.info.description}` : ""}` };
      body = this.serialize(doc);
      this.generics.set(key, body);
    }
    return body;
  }

  /** The generic routes with the security this deployment really applies. */
  private base(): Record<string, unknown> {
    const authEnabled = this.state.auth.enabled;
    const openPaths = this.policies.openUnder(this.state.loaded.config);
    return withSecurity(this.app.swagger() as Record<string, unknown>, { authEnabled, openPaths });
  }

  // A reload may turn auth on or off, or open a route (metrics.public): both are part of the document.
  private settings(): string {
    return `${this.state.auth.enabled}|${this.policies.openUnder(this.state.loaded.config).join(",")}`;
  }

  private serialize(doc: Record<string, unknown>): string {
    return this.scrub(JSON.stringify(doc));
  }
}
