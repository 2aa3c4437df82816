import { ERRORS, ToolnexusError, type ErrorCode } from "../../core/errors.js";
import { EVERY_INPUT_CAPABILITY } from "../../core/input/pending-input.js";
import type { SurfaceEntry } from "../../core/surface/catalog.js";
import { uriProblem } from "../../core/surface/names.js";
import type { SurfaceItem } from "../../core/surface/provider.js";
import type { Caller } from "../auth/index.js";
import type { CallPipeline } from "../calls/call-pipeline.js";
import type { CatalogViews } from "../catalog/view.js";
import { JsonRpcError } from "../mcp/results.js";
import { SurfaceMethods, SurfaceNotFound, surfaceAuditCall } from "../mcp/surface/surface-methods.js";
import type { ServiceState } from "../service/service-state.js";

/**
 * The REST form of the MCP surface: the very methods `/mcp` answers with (`SurfaceMethods`:
 * the same access, the same routing, the same audit lines), with their JSON-RPC errors turned
 * into the REST problems. Loaded on the first request of these routes, as it brings the MCP
 * SDK's server with it.
 */

/** One request's context: who asks, its request id, and the signal that ends it when the client goes. */
export interface RestRequest {
  caller: Caller;
  requestId: string;
  signal: AbortSignal;
}

/** The body of `POST /prompts/{name}/get`. */
export interface PromptGet {
  arguments?: Record<string, string>;
  inputResponses?: Record<string, Record<string, unknown>>;
  requestState?: string;
}

/** A page of a merged list. */
export type Page = Record<string, unknown>;

type Kind = "resources" | "resourceTemplates" | "prompts";

/** A caller's whole surface, as listed (what the portal shows). */
export interface SurfaceOverview {
  resources: SurfaceItem[];
  templates: SurfaceItem[];
  prompts: SurfaceItem[];
}

/** The surface's REST answers for one service. */
export class RestSurface {
  private readonly methods: SurfaceMethods;

  constructor(
    state: ServiceState,
    views: CatalogViews,
    pipeline: CallPipeline,
    private readonly scrub: (s: string) => string,
  ) {
    this.methods = new SurfaceMethods(state, views, scrub, (e) => pipeline.recordAudit(surfaceAuditCall(e, "rest")));
  }

  /** A page of the caller's resources, templates or prompts, of one server when `server` is given. */
  list(kind: Kind, caller: Caller, q: { cursor?: string | undefined; server?: string | undefined }, pageSize: number): Page {
    const m = this.methods;
    const items = kind === "resources" ? m.resources(caller) : kind === "prompts" ? m.prompts(caller) : m.templates(caller);
    return page(kind, q.server === undefined ? items : ofServer(this.entries(kind), items, q.server), q.cursor, pageSize);
  }

  /** Everything the caller may see, unpaged. */
  overview(caller: Caller): SurfaceOverview {
    const m = this.methods;
    return { resources: m.resources(caller), templates: m.templates(caller), prompts: m.prompts(caller) };
  }

  /** The caller's items of the surface with their owners (a visible item is the entry's own object). */
  private entries(kind: Kind): readonly SurfaceEntry[] {
    const surface = this.methods.surface();
    return kind === "resources" ? surface.resources : kind === "prompts" ? surface.prompts : surface.templates;
  }

  /** `resources/read`: 400 for a malformed URI, 404 RESOURCE_NOT_FOUND for one unknown or not the caller's. */
  async read(r: RestRequest, uri: string): Promise<SurfaceItem> {
    const problem = uriProblem(uri);
    if (problem !== undefined) throw new ToolnexusError("INVALID_REQUEST", `Invalid uri: ${problem}`);
    return this.answer(() => this.methods.read(r.caller, uri, r.signal, r.requestId));
  }

  /**
   * `prompts/get`: 404 PROMPT_NOT_FOUND for a prompt unknown or not the caller's. A REST caller
   * can answer every kind of input request: its server's questions come back as a
   * `PromptInputRequired`, and the same request with `inputResponses` and `requestState` answers them.
   */
  async getPrompt(r: RestRequest, name: string, body: PromptGet): Promise<SurfaceItem> {
    // Answers without the state they answer would reach nobody: say so rather than ask again.
    if (body.inputResponses !== undefined && body.requestState === undefined)
      throw new ToolnexusError("INVALID_REQUEST", "inputResponses answer a PromptInputRequired: send its requestState with them");
    const ask = {
      capabilities: EVERY_INPUT_CAPABILITY,
      ...(body.requestState !== undefined
        ? { answer: { requestState: body.requestState, inputResponses: body.inputResponses ?? {} } }
        : {}),
    };
    return this.answer(() => this.methods.getPrompt(r.caller, name, body.arguments, r.signal, r.requestId, ask));
  }

  /** `completion/complete`, routed by the prompt or the template to its server. */
  async complete(r: RestRequest, body: SurfaceItem): Promise<SurfaceItem> {
    return this.answer(() => this.methods.complete(r.caller, body, r.signal, r.requestId));
  }

  /** Runs one method; its JSON-RPC error becomes the problem REST answers. */
  private async answer(run: () => Promise<SurfaceItem>): Promise<SurfaceItem> {
    try {
      return await run();
    } catch (err) {
      throw this.problemOf(err);
    }
  }

  private problemOf(err: unknown): unknown {
    if (err instanceof SurfaceNotFound)
      return new ToolnexusError(err.what === "resource" ? "RESOURCE_NOT_FOUND" : "PROMPT_NOT_FOUND", err.message);
    if (!(err instanceof JsonRpcError)) return err;
    // A ToolnexusError on its way to MCP: its code rides in `data`.
    const code = err.data?.code;
    if (typeof code === "string" && isErrorCode(code)) return new ToolnexusError(code, err.message);
    // The server refused the request's params (a prompt's arguments, a completion's): the caller's to fix.
    if (err.code === -32602) return new ToolnexusError("INVALID_ARGUMENTS", this.scrub(err.message));
    return new ToolnexusError("UPSTREAM_ERROR", `The MCP server answered with an error: ${this.scrub(err.message)}`);
  }
}

function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERRORS, code);
}

/** The items of `server` among the visible `items`. */
function ofServer(entries: readonly SurfaceEntry[], items: SurfaceItem[], server: string): SurfaceItem[] {
  const visible = new Set(items);
  return entries.filter((e) => e.owner.name === server && visible.has(e.item)).map((e) => e.item);
}

/**
 * One page of a merged list. The cursor is opaque to callers; it is the offset of the page, so
 * any well-formed one is a page (past the end, an empty one), on any replica.
 */
function page(key: string, items: SurfaceItem[], cursor: string | undefined, size: number): Page {
  const start = cursor === undefined ? 0 : parseInt(cursor, 36);
  const end = start + size;
  return { [key]: items.slice(start, end), ...(end < items.length ? { nextCursor: end.toString(36) } : {}) };
}
