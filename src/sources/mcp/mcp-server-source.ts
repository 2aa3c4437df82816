import type { Tool as McpToolDef } from "@modelcontextprotocol/client";
import type { Source, SourceContext, SourceStatus } from "../../core/source.js";
import { silentLogger, type Logger, type Tool, type ToolContext, type ToolResult } from "../../core/types.js";
import type { EgressConfig } from "../../config/schema/server.js";
import type { BackoffOptions } from "./connection/backoff.js";
import { callTask } from "./call/task.js";
import { callTaskV2, TASKS_EXTENSION } from "./call/task-v2.js";
import { callTool, type CallSite } from "./call/tool.js";
import type { McpConnection } from "./connection/connect.js";
import { HealingSession } from "./connection/healing-session.js";
import type { InputDeps } from "../../core/input/requests.js";
import { DEFAULT_INPUT_DEPS } from "./call/upstream-input.js";
import { requiresTask, toTool } from "./mcp-tool.js";
import { redact } from "./redact.js";
import { withForwardedBearer } from "../../net/forward-auth.js";
import type { McpServerSpec } from "./config/server-spec.js";
import { filterTools } from "./tool-filter.js";
import type { PromptInput, SurfaceContext, SurfaceItem, SurfaceLists, SurfaceProvider } from "../../core/surface/provider.js";
import type { SurfacePrefix } from "../../core/surface/names.js";
import { UpstreamSurface } from "./surface/upstream-surface.js";
import { exposeResultUris, watchSurface } from "./surface/watch.js";
import { UpstreamSubscriptions } from "./surface/subscriptions.js";

/** True when a 2026-07-28 server announced the tasks extension (`io.modelcontextprotocol/tasks`) in `server/discover`. */
function servesTasksExtension(conn: McpConnection): boolean {
  const extensions = conn.client.getServerCapabilities()?.extensions;
  return conn.client.getProtocolEra() === "modern" && extensions?.[TASKS_EXTENSION] !== undefined;
}

/** Options of one MCP server source beside its spec. */
export interface McpSourceOptions {
  /** Values expanded from the environment: scrubbed from every error text the source keeps. */
  secrets?: readonly string[];
  /** The config's `egress` section, for remote servers. */
  egress?: EgressConfig;
  backoff?: BackoffOptions;
  /** The service's sealer and `server.inputTimeoutMs`, for a 2026 upstream's input requests. */
  input?: InputDeps;
}

/**
 * One configured MCP server as a tool source. It connects at build (a failure is `failed`,
 * never fatal), and heals itself (`HealingSession`): when the session drops, calls in flight
 * fail at once with 502, the tools stay listed (calls answer 502 meanwhile), and it reconnects
 * with capped, jittered exponential backoff. A server that failed at start is retried the same way.
 */
export class McpServerSource implements Source, SurfaceProvider {
  readonly kind = "mcp" as const;
  readonly name: string;
  /** The server's whole config: a reload with an identical entry keeps this connection (no restart). */
  readonly fingerprint: string;
  private list: Tool[] = [];
  private signature = "";
  /** The server's names of the tools it runs only as tasks (2025-11-25 core tasks). */
  private taskOnly = new Set<string>();
  /** The server serves the 2026 tasks extension: every call opts in to it (the server decides which become tasks). */
  private tasksExtension = false;
  private ctx?: SourceContext;
  private log: Logger = silentLogger;
  /** The session with the server, kept alive across drops. */
  private readonly session: HealingSession;
  /** How its prompts and resource URIs are named in the catalog (as its tools: the prefix, else its name). */
  readonly surfacePrefix: SurfacePrefix;
  /** Its resources, templates and prompts. */
  private readonly surface: UpstreamSurface;
  /** The resource subscriptions held on it while someone listens. */
  private readonly subscriptions: UpstreamSubscriptions;

  constructor(
    private readonly spec: McpServerSpec,
    private readonly opts: McpSourceOptions = {},
  ) {
    this.name = spec.name;
    this.fingerprint = JSON.stringify({ spec, egress: opts.egress ?? null });
    this.site.server = spec.name;
    if (opts.input) this.site.input = opts.input;
    this.surfacePrefix = spec.prefix ?? spec.name;
    this.surface = new UpstreamSurface(
      spec.name,
      spec.timeout,
      () => this.log,
      (t) => this.scrub(t),
    );
    this.subscriptions = new UpstreamSubscriptions(
      spec.timeout,
      () => this.log,
      (t) => this.scrub(t),
    );
    this.session = new HealingSession(spec, {
      ...(opts.egress ? { egress: opts.egress } : {}),
      ...(opts.backoff ? { backoff: opts.backoff } : {}),
      log: () => this.log,
      scrub: (t) => this.scrub(t),
      lists: {
        loadSurface: (client, signal) => this.surface.load(client, signal),
        connected: (conn, defs, onListChanged) => this.connected(conn, defs, onListChanged),
        relisted: (conn, defs, surfaceChanged) => {
          if (!this.setTools(conn, defs) && surfaceChanged) this.ctx?.onToolsChanged();
        },
      },
    });
  }

  async build(ctx: SourceContext): Promise<void> {
    this.ctx = ctx;
    this.log = ctx.logger;
    await this.session.start();
  }

  tools(): readonly Tool[] {
    return this.list;
  }

  status(): SourceStatus {
    const { state, protocolVersion, protocolReason, error } = this.session;
    return {
      source: this.kind,
      name: this.name,
      state,
      tools: this.list.length,
      ...(protocolVersion ? { protocolVersion } : {}),
      ...(protocolVersion && protocolReason ? { protocolReason } : {}),
      ...(error ? { error } : {}),
    };
  }

  /** Ends the session and any reconnect loop; kills a stdio server's process tree. */
  close(): Promise<void> {
    return this.session.close();
  }

  /** Takes a session just established: watches its lists, resubscribes, lists its tools. */
  private connected(conn: McpConnection, defs: McpToolDef[], onListChanged: () => void): void {
    watchSurface(conn.client, onListChanged);
    this.subscriptions.attach(conn.client);
    this.setTools(conn, defs);
    this.log.info({ tools: this.list.length, wire: conn.wire, protocolVersion: conn.protocolVersion }, "mcp server connected");
  }

  /** Takes a fresh tool list of the session `conn`; true when it changed (and the toolkit was told). */
  private setTools(conn: McpConnection, listed: McpToolDef[]): boolean {
    this.tasksExtension = servesTasksExtension(conn);
    // A 2026 tool declares no task support (the revision dropped `execution`): any call of a
    // tasks server may become a task, so /mcp may make it one too.
    const defs = this.tasksExtension ? listed.map((d) => ({ ...d, execution: { taskSupport: "optional" } }) as McpToolDef) : listed;
    this.taskOnly = new Set(defs.filter(requiresTask).map((d) => d.name));
    const { kept, unknown } = filterTools(defs, this.spec.tools);
    if (unknown.length > 0) this.log.warn({ unknown }, "mcp tools filter names tools the server does not have");
    const signature = JSON.stringify(kept.map((d) => [d.name, d.description, d.inputSchema]));
    if (signature === this.signature) return false;
    this.signature = signature;
    this.list = kept.map((d) =>
      toTool(this.spec.prefix ?? this.name, d, (tool, args, ctx) => this.call(tool, args, ctx), this.spec.upstreamAuth),
    );
    this.ctx?.onToolsChanged();
    return true;
  }

  surfaceLists(): SurfaceLists {
    return this.surface.current();
  }

  readResource(uri: string, ctx: SurfaceContext): Promise<SurfaceItem> {
    return this.surface.read(this.session.live().client, uri, this.forwarded(ctx));
  }

  getPrompt(name: string, args: Record<string, string> | undefined, ctx: SurfaceContext, input?: PromptInput): Promise<SurfaceItem> {
    return this.surface.getPrompt(this.session.live().client, name, args, this.forwarded(ctx), input);
  }

  complete(params: SurfaceItem, ctx: SurfaceContext): Promise<SurfaceItem> {
    return this.surface.complete(this.session.live().client, params, this.forwarded(ctx));
  }

  subscribeResource(uri: string): Promise<void> {
    return this.subscriptions.subscribe(uri);
  }

  unsubscribeResource(uri: string): Promise<void> {
    return this.subscriptions.unsubscribe(uri);
  }

  onResourceUpdated(fn: (uri: string) => void): () => void {
    return this.subscriptions.onUpdated(fn);
  }

  // Only a forwardAuth server gets the caller's bearer (as its tool calls do).
  private forwarded(ctx: SurfaceContext): SurfaceContext {
    return this.spec.forwardAuth ? ctx : { ...(ctx.signal ? { signal: ctx.signal } : {}) };
  }

  /** One tools/call on the current session; 502 while there is none. */
  private async call(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const conn = this.session.live();
    // forwardAuth: the JWT caller's token (or the one exchanged for it) goes on this call's requests (never an API key: ctx.auth is JWT-only).
    const bearer = this.spec.forwardAuth ? ctx.auth : undefined;
    // The 2026 tasks extension on the session's raw path; 2025-11-25 core tasks through ext-tasks.
    const run = this.tasksExtension ? callTaskV2 : this.taskOnly.has(tool) ? callTask : callTool;
    const result = await withForwardedBearer(bearer, () => run(conn, this.site, tool, args, ctx));
    return exposeResultUris(result, this.surfacePrefix);
  }

  private readonly site: CallSite = {
    server: "",
    isLost: (conn) => conn !== this.session.current,
    lose: (conn, why) => this.session.lost(conn, why),
    scrub: (text) => this.scrub(text),
    input: DEFAULT_INPUT_DEPS,
  };

  private scrub(text: string): string {
    return redact(text, [...this.spec.secrets, ...(this.opts.secrets ?? [])]);
  }
}
