import type { Tool } from "../types.js";
import type { SurfacePrefix } from "./names.js";

/**
 * What a source serves beside tools: an MCP server's resources, resource templates, prompts
 * and completions. The lists are the server's own (its names and URIs); the catalog
 * (catalog.ts) names them for callers and routes a request back to the source that owns it.
 */

/** A listed item as the server sent it (a resource, a template or a prompt): kept whole, so nothing it says is lost. */
export type SurfaceItem = Record<string, unknown>;

/** What a server offers beyond tools, from its advertised capabilities. */
export interface SurfaceCapabilities {
  resources: boolean;
  /** `resources/subscribe` is served. */
  subscribe: boolean;
  prompts: boolean;
  completions: boolean;
  /** The MCP Apps extension (`io.modelcontextprotocol/ui`), as the server advertised it. */
  apps?: Record<string, unknown>;
}

/** A server's lists as last fetched (at connect and on each list_changed). */
export interface SurfaceLists {
  resources: readonly SurfaceItem[];
  templates: readonly SurfaceItem[];
  prompts: readonly SurfaceItem[];
  capabilities: SurfaceCapabilities;
}

/** What travels with one request to a server: its abort signal and, for forwardAuth servers, the caller's bearer. */
export interface SurfaceContext {
  signal?: AbortSignal;
  auth?: { bearer: string };
}

/** The retry of a `prompts/get` the server answered `input_required`: the caller's answers and the server's own state. */
export interface PromptRetry {
  inputResponses: Record<string, unknown>;
  requestState?: string;
}

/** What a `prompts/get` carries beside its arguments: the client capabilities the server is told, and a retry. */
export interface PromptInput {
  /** The input requests the caller can answer (elicitation, sampling, roots), told to a 2026 server. */
  capabilities: Record<string, unknown>;
  retry?: PromptRetry;
}

/** A source that serves resources, prompts and completions (an MCP server). */
export interface SurfaceProvider {
  readonly name: string;
  /** How its names and URIs are shown (names.ts). */
  readonly surfacePrefix: SurfacePrefix;
  /** Its tools, by which access to the rest is decided (a caller sees the surface of servers whose tools it may use). */
  tools(): readonly Tool[];
  surfaceLists(): SurfaceLists;
  /** `resources/read` of the server's own URI; the result's URIs are the server's too. */
  readResource(uri: string, ctx: SurfaceContext): Promise<SurfaceItem>;
  /**
   * `prompts/get` of the server's own prompt name. With `input`, the server may answer
   * `input_required` (its `inputRequests` and `requestState`), returned as it is.
   */
  getPrompt(name: string, args: Record<string, string> | undefined, ctx: SurfaceContext, input?: PromptInput): Promise<SurfaceItem>;
  /** `completion/complete` with the server's own names in `ref`. */
  complete(params: SurfaceItem, ctx: SurfaceContext): Promise<SurfaceItem>;
  /**
   * Holds an upstream subscription to the server's own URI (kept across reconnects until
   * {@link SurfaceProvider.unsubscribeResource}). Absent: the source cannot subscribe.
   */
  subscribeResource?(uri: string): Promise<void>;
  /** Drops the upstream subscription to the server's own URI. */
  unsubscribeResource?(uri: string): Promise<void>;
  /** Calls `fn` with the server's own URI of each update it announces; returns the way to stop. */
  onResourceUpdated?(fn: (uri: string) => void): () => void;
}

/** True for a source that also serves resources and prompts. */
export function isSurfaceProvider(s: unknown): s is SurfaceProvider {
  return (
    typeof s === "object" &&
    s !== null &&
    typeof (s as SurfaceProvider).surfaceLists === "function" &&
    typeof (s as SurfaceProvider).readResource === "function"
  );
}
