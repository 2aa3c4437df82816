import { ProtocolErrorCode, SERVER_INFO_META_KEY } from "@modelcontextprotocol/server";
import { isToolnexusError, ToolnexusError } from "../../../core/errors.js";
import type { AuditCall } from "../../../governance/audit-line.js";
import { viewSurface, type SurfaceView } from "../../../core/surface/access.js";
import type { Surface } from "../../../core/surface/catalog.js";
import { exposedUri, uriProblem } from "../../../core/surface/names.js";
import type { SurfaceItem } from "../../../core/surface/provider.js";
import { rewriteContents, rewriteMessages } from "../../../core/surface/rewrite.js";
import type { InputDeps } from "../../../core/input/requests.js";
import { ownerKey, type Caller } from "../../auth/index.js";
import type { CatalogViews } from "../../catalog/view.js";
import type { ServiceState } from "../../service/service-state.js";
import { JsonRpcError, toJsonRpcError } from "../results.js";
import { openPromptRetry, promptInputRequired, type PromptAnswer } from "./prompt-input.js";
import { MAX_SUBSCRIBED_URIS, type SubscribedRoute } from "./subscriptions.js";

/** A `prompts/get` from a caller that can be asked: what it can answer, and its retry's answer. */
export interface PromptAsk {
  capabilities: Record<string, unknown>;
  answer?: PromptAnswer;
}

/** Whether a caller may subscribe to URIs: their routes, or why not (too many, or the first it may not see). */
export type SubscribeCheck = { routes: SubscribedRoute[] } | { tooMany: number } | { unknown: string };

/**
 * The answer for a resource, prompt or template that does not exist or that the caller may not
 * see: -32602 on MCP; REST answers 404 with the code of `what`.
 */
export class SurfaceNotFound extends JsonRpcError {
  constructor(
    readonly what: "resource" | "prompt",
    message: string,
    data?: Record<string, unknown>,
  ) {
    super(ProtocolErrorCode.InvalidParams, message, data);
  }
}

/** One audited request of the surface. */
export interface SurfaceAuditEvent {
  caller: Caller;
  requestId: string;
  method: string;
  target: string;
  ok: boolean;
  /** Its server asked the caller first (a prompt's `input_required`): answered by a retry. */
  pending?: boolean;
  durationMs: number;
}

/** The audit line of a surface request made over `transport`: the method and target as its tool. */
export function surfaceAuditCall(e: SurfaceAuditEvent, transport: "mcp" | "rest"): AuditCall {
  return {
    requestId: e.requestId,
    transport,
    principal: e.caller.id,
    auth: e.caller.kind,
    tool: `${e.method} ${e.target}`,
    source: "mcp",
    arguments: {},
    outcome: e.ok ? "ok" : "failed",
    status: e.ok ? 200 : 500,
    ...(e.pending ? { pending: true } : {}),
    durationMs: e.durationMs,
  };
}

/**
 * `resources/*`, `prompts/*` and `completion/complete` of the catalog for one caller: merged
 * lists (one opaque cursor), reads, prompt gets and completions routed to the owning server
 * with names and URIs mapped both ways. What a caller sees is {@link SurfaceMethods.view}
 * (the servers whose tools it may use, or its grants' `resources` / `prompts` globs; a bundle
 * narrows it; an MCP App's `ui://` resource only with a tool that points at it; nothing that
 * pinning withholds); what it may not see is answered exactly as what does not exist.
 */
export class SurfaceMethods {
  constructor(
    private readonly state: ServiceState,
    private readonly views: CatalogViews,
    private readonly scrub: (s: string) => string,
    private readonly audit: (e: SurfaceAuditEvent) => void = () => {},
  ) {}

  /** The merged surface of the catalog in service. */
  surface(): Surface {
    return this.state.toolkit().surface();
  }

  /**
   * What `caller` may see of the surface: the one decision every route of the surface filters
   * by (core/surface/access.ts), built once per view of the catalog and grant.
   */
  view(caller: Caller): SurfaceView {
    const view = this.views.of(caller);
    // Callers sharing a tool set share the view; globs and a bundle's globs are the caller's own.
    const own = caller.surfaceGrants || caller.bundleSurface ? (caller.viewKey ?? caller.id) : "";
    return view.form(`surface view|${caller.allows("") ? 1 : 0}|${own}`, () =>
      viewSurface(this.surface(), caller, new Set(view.tools), (key) => this.state.hold.withheld(key)),
    );
  }

  /** The caller's resources (in the catalog's form). */
  resources(caller: Caller): SurfaceItem[] {
    return this.view(caller).resources.map((e) => e.item);
  }

  /** The caller's resource templates. */
  templates(caller: Caller): SurfaceItem[] {
    return this.view(caller).templates.map((e) => e.item);
  }

  /** The caller's prompts. */
  prompts(caller: Caller): SurfaceItem[] {
    return this.view(caller).prompts.map((e) => e.item);
  }

  /** `resources/read`: -32602 with `data.uri` for a URI that is malformed, unknown or not the caller's. */
  async read(caller: Caller, uri: string, signal: AbortSignal, requestId: string): Promise<SurfaceItem> {
    const notFound = () => new SurfaceNotFound("resource", `Resource not found: ${uri.slice(0, 200)}`, { uri });
    if (uriProblem(uri) !== undefined) throw notFound();
    const route = this.surface().route(uri);
    if (!route || !this.view(caller).mayRead(route, uri)) throw notFound();
    const { owner } = route;
    return this.audited(caller, "resources/read", uri, requestId, async () => {
      try {
        const res = await owner.readResource(route.upstream, { signal });
        return { contents: rewriteContents(res.contents, (u) => exposedUri(owner.surfacePrefix, u)), ...meta(res) };
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (code === ProtocolErrorCode.InvalidParams || code === -32002) throw notFound();
        throw err;
      }
    });
  }

  /**
   * The routes of the URIs `caller` subscribes to, or why not: more than
   * {@link MAX_SUBSCRIBED_URIS}, or the first URI that is malformed, unknown or not the caller's
   * (one answer for all three, as for a read).
   */
  subscribable(caller: Caller, uris: readonly string[]): SubscribeCheck {
    if (uris.length > MAX_SUBSCRIBED_URIS) return { tooMany: uris.length };
    const view = this.view(caller);
    const surface = this.surface();
    const routes: SubscribedRoute[] = [];
    for (const uri of uris) {
      const route = uriProblem(uri) === undefined ? surface.route(uri) : undefined;
      if (!route || !view.mayRead(route, uri)) return { unknown: uri };
      routes.push({ uri, owner: route.owner, upstream: route.upstream });
    }
    return { routes };
  }

  /** {@link subscribable}, its refusal as the JSON-RPC error of MCP (-32602, `data.uri` for a URI not found). */
  subscribeRoutes(caller: Caller, uris: readonly string[]): SubscribedRoute[] {
    const check = this.subscribable(caller, uris);
    if ("routes" in check) return check.routes;
    if ("tooMany" in check)
      throw new JsonRpcError(
        ProtocolErrorCode.InvalidParams,
        `Too many resource subscriptions: ${check.tooMany} URIs (at most ${MAX_SUBSCRIBED_URIS} at once)`,
      );
    throw new JsonRpcError(ProtocolErrorCode.InvalidParams, `Resource not found: ${check.unknown.slice(0, 200)}`, { uri: check.unknown });
  }

  /**
   * `prompts/get`: -32602 for a prompt that is unknown or not the caller's. A caller that can
   * be asked (`ask`: the input requests it can answer, and its retry's answer) gets an
   * upstream's `input_required` relayed with a state the gateway sealed (prompt-input.ts).
   */
  async getPrompt(
    caller: Caller,
    name: string,
    args: Record<string, string> | undefined,
    signal: AbortSignal,
    requestId: string,
    ask?: PromptAsk,
  ): Promise<SurfaceItem> {
    const entry = this.view(caller).prompt(name);
    if (!entry) throw new SurfaceNotFound("prompt", `No prompt named "${name.slice(0, 200)}"`);
    const { owner } = entry;
    const deps = this.inputDeps();
    const callerKey = ownerKey(caller);
    const target = { server: owner.name, prompt: entry.upstream };
    return this.audited(caller, "prompts/get", name, requestId, async () => {
      // A forged, foreign or late state, or answers that do not fit, stop here.
      const opened = ask?.answer ? openPromptRetry(deps, target, callerKey, ask.answer) : undefined;
      const input = { capabilities: ask?.capabilities ?? {}, ...(opened ? { retry: opened.retry } : {}) };
      const res = await owner.getPrompt(entry.upstream, args, { signal }, input);
      const inputRequired = promptInputRequired(deps, target, callerKey, res, opened?.round ?? 1, ask?.capabilities);
      if (inputRequired) return inputRequired;
      const description = typeof res.description === "string" ? { description: res.description } : {};
      return { ...description, messages: rewriteMessages(res.messages, (u) => exposedUri(owner.surfacePrefix, u)), ...meta(res) };
    });
  }

  /** `completion/complete`, routed by the prompt's name or the template's URI to its server. */
  async complete(caller: Caller, params: SurfaceItem, signal: AbortSignal, requestId: string): Promise<SurfaceItem> {
    const ref = (params.ref ?? {}) as SurfaceItem;
    const view = this.view(caller);
    const entry =
      ref.type === "ref/prompt" && typeof ref.name === "string"
        ? view.prompt(ref.name)
        : ref.type === "ref/resource" && typeof ref.uri === "string"
          ? view.template(ref.uri)
          : undefined;
    const target = String(ref.name ?? ref.uri ?? "");
    if (!entry)
      throw new SurfaceNotFound(
        ref.type === "ref/resource" ? "resource" : "prompt",
        `No prompt or resource template "${target.slice(0, 200)}"`,
      );
    const upstreamRef = ref.type === "ref/prompt" ? { ...ref, name: entry.upstream } : { ...ref, uri: entry.upstream };
    return this.audited(caller, "completion/complete", target, requestId, async () => {
      const res = await entry.owner.complete({ ...params, ref: upstreamRef }, { signal });
      return { completion: res.completion };
    });
  }

  private inputDeps(): InputDeps {
    return { sealer: this.state.sealer, inputTimeoutMs: this.state.loaded.config.server.inputTimeoutMs };
  }

  private async audited<T>(caller: Caller, method: string, target: string, requestId: string, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let ok = false;
    let pending = false;
    try {
      const out = await run();
      ok = true;
      pending = (out as SurfaceItem).resultType === "input_required";
      return out;
    } catch (err) {
      if (err instanceof JsonRpcError) throw err;
      const code = (err as { code?: unknown }).code;
      if (typeof code === "number" && !isToolnexusError(err)) throw new JsonRpcError(code, this.scrub((err as Error).message));
      throw toJsonRpcError(
        isToolnexusError(err) ? err : new ToolnexusError("INTERNAL", "Internal error", { cause: err }),
        requestId,
        this.scrub,
      );
    } finally {
      const durationMs = Math.round((performance.now() - started) * 10) / 10;
      this.audit({ caller, requestId, method, target, ok, ...(pending ? { pending } : {}), durationMs });
    }
  }
}

// A result's own `_meta` (an MCP App's `ui` among it) travels; its era's envelope fields do not.
function meta(res: SurfaceItem): SurfaceItem {
  if (typeof res._meta !== "object" || res._meta === null) return {};
  // The upstream's identity is not ours: the SDK stamps the gateway's.
  const kept = Object.entries(res._meta).filter(([k]) => k !== SERVER_INFO_META_KEY);
  return kept.length ? { _meta: Object.fromEntries(kept) } : {};
}
