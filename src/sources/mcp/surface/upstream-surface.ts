import { ProtocolError, type Client } from "@modelcontextprotocol/client";
import { upstreamUnavailable } from "../../../core/errors.js";
import type { PromptInput, SurfaceCapabilities, SurfaceContext, SurfaceItem, SurfaceLists } from "../../../core/surface/provider.js";
import type { Logger } from "../../../core/types.js";
import { withForwardedBearer } from "../../../net/forward-auth.js";
import { classifyCallError } from "../call/error.js";
import { MAX_STATE_ONLY_RETRIES, requestMeta } from "../call/options.js";

/** The MCP Apps extension's id, as a server advertises it in its capabilities' `extensions`. */
export const APPS_EXTENSION = "io.modelcontextprotocol/ui";
/**
 * The most a `resources/read` answer may hold (text characters plus base64 characters): a
 * server answering with more gets an error, not a gateway holding it for every caller.
 */
const MAX_READ_CHARS = 8 * 1024 * 1024;

const NONE: SurfaceLists = {
  resources: [],
  templates: [],
  prompts: [],
  capabilities: { resources: false, subscribe: false, prompts: false, completions: false },
};

/** An upstream's JSON-RPC error, kept as its code and message so the catalog can answer in kind. */
class UpstreamRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "UpstreamRpcError";
  }
}

/**
 * What one MCP server serves beside tools, fetched at connect and on each list_changed:
 * its resources, resource templates and prompts as it lists them, and the requests to it
 * (`resources/read`, `prompts/get`, `completion/complete`). A server that fails to list them
 * keeps its tools: the lists are then empty, with a warning.
 */
export class UpstreamSurface {
  private lists: SurfaceLists = NONE;

  constructor(
    private readonly server: string,
    private readonly timeout: number,
    private readonly log: () => Logger,
    private readonly scrub: (s: string) => string,
  ) {}

  /** The lists as last fetched. */
  current(): SurfaceLists {
    return this.lists;
  }

  /** Forgets the lists (the session is gone for good). */
  clear(): void {
    this.lists = NONE;
  }

  /** Fetches every list the server's capabilities announce; true when they changed. */
  async load(client: Client, signal?: AbortSignal): Promise<boolean> {
    const caps = capabilitiesOf(client);
    const opts = { timeout: this.timeout, cacheMode: "refresh" as const, ...(signal ? { signal } : {}) };
    const quietly = async <T>(what: string, run: () => Promise<T[]>): Promise<T[]> => {
      try {
        return await run();
      } catch (err) {
        this.log().warn({ error: this.scrub((err as Error).message) }, `mcp ${what} failed; serving none`);
        return [];
      }
    };
    const [resources, templates, prompts] = await Promise.all([
      caps.resources ? quietly("resources/list", async () => (await client.listResources(undefined, opts)).resources) : [],
      caps.resources
        ? quietly("resources/templates/list", async () => (await client.listResourceTemplates(undefined, opts)).resourceTemplates)
        : [],
      caps.prompts ? quietly("prompts/list", async () => (await client.listPrompts(undefined, opts)).prompts) : [],
    ]);
    const next: SurfaceLists = {
      resources: resources as SurfaceItem[],
      templates: templates as SurfaceItem[],
      prompts: prompts as SurfaceItem[],
      capabilities: caps,
    };
    const changed = JSON.stringify(next) !== JSON.stringify(this.lists);
    this.lists = next;
    return changed;
  }

  /** `resources/read` of the server's URI, bounded by {@link MAX_READ_CHARS}. */
  async read(client: Client, uri: string, ctx: SurfaceContext): Promise<SurfaceItem> {
    const res = await this.request("resources/read", ctx, () =>
      client.readResource({ uri }, { timeout: this.timeout, cacheMode: "bypass", ...(ctx.signal ? { signal: ctx.signal } : {}) }),
    );
    let size = 0;
    for (const c of res.contents as SurfaceItem[]) {
      size += (typeof c.text === "string" ? c.text.length : 0) + (typeof c.blob === "string" ? c.blob.length : 0);
    }
    if (size > MAX_READ_CHARS)
      throw upstreamUnavailable(`MCP server "${this.server}" answered resources/read with more than ${MAX_READ_CHARS} characters`);
    return res as SurfaceItem;
  }

  /**
   * `prompts/get` of the server's prompt. An `input_required` answer is returned as it is (the
   * catalog relays it); one that only carries a `requestState` (the server sheds load) is
   * retried at once, at most {@link MAX_STATE_ONLY_RETRIES} times.
   */
  async getPrompt(
    client: Client,
    name: string,
    args: Record<string, string> | undefined,
    ctx: SurfaceContext,
    input?: PromptInput,
  ): Promise<SurfaceItem> {
    const opts = { timeout: this.timeout, allowInputRequired: true, ...(ctx.signal ? { signal: ctx.signal } : {}) };
    // A 2026 server is told what the caller can answer (nothing, without `input`); a 2025 one asks mid-call or not at all.
    const caps = client.getProtocolEra() === "modern" ? (input?.capabilities ?? {}) : undefined;
    const base = { name, ...(args ? { arguments: args } : {}), ...requestMeta(undefined, undefined, caps) };
    const retry = input?.retry;
    let params: SurfaceItem = {
      ...base,
      ...(retry ? { inputResponses: retry.inputResponses } : {}),
      ...(retry?.requestState !== undefined ? { requestState: retry.requestState } : {}),
    };
    for (let attempt = 0; ; attempt++) {
      const request = params;
      const res = (await this.request("prompts/get", ctx, () => client.getPrompt(request as { name: string }, opts))) as SurfaceItem;
      if (!shedsLoad(res) || attempt >= MAX_STATE_ONLY_RETRIES) return res;
      params = { ...base, requestState: res.requestState };
    }
  }

  /** `completion/complete` with the server's own names in `ref`. */
  async complete(client: Client, params: SurfaceItem, ctx: SurfaceContext): Promise<SurfaceItem> {
    const opts = { timeout: this.timeout, ...(ctx.signal ? { signal: ctx.signal } : {}) };
    return (await this.request("completion/complete", ctx, () => client.complete(params as never, opts))) as SurfaceItem;
  }

  /**
   * One request, with the caller's bearer for a forwardAuth server. The server's JSON-RPC error
   * comes back as an {@link UpstreamRpcError} (scrubbed); an unreachable server, a malformed
   * answer or a timeout as the errors a tool call gets.
   */
  private async request<T>(method: string, ctx: SurfaceContext, run: () => Promise<T>): Promise<T> {
    try {
      return await withForwardedBearer(ctx.auth, run);
    } catch (err) {
      if (ctx.signal?.aborted) throw ctx.signal.reason;
      if (err instanceof ProtocolError) throw new UpstreamRpcError(err.code, this.scrub(err.message));
      const failure = classifyCallError(err, { server: this.server, tool: method, lost: false });
      throw failure.throw ?? new UpstreamRpcError(-32603, this.scrub(failure.result.output));
    }
  }
}

// An input_required that asks nothing: the server wants the same request again with its state.
function shedsLoad(res: SurfaceItem): boolean {
  return res.resultType === "input_required" && res.inputRequests === undefined && typeof res.requestState === "string";
}

/** What the server offers beyond tools, from the capabilities it advertised. */
function capabilitiesOf(client: Client): SurfaceCapabilities {
  const caps = client.getServerCapabilities() as Record<string, unknown> | undefined;
  const resources = caps?.resources as { subscribe?: boolean } | undefined;
  const apps = (caps?.extensions as Record<string, unknown> | undefined)?.[APPS_EXTENSION];
  return {
    resources: resources !== undefined,
    subscribe: resources?.subscribe === true,
    prompts: caps?.prompts !== undefined,
    completions: caps?.completions !== undefined,
    ...(typeof apps === "object" && apps !== null ? { apps: apps as Record<string, unknown> } : {}),
  };
}
