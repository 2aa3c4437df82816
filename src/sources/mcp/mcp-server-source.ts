import type { Tool as McpToolDef } from "@modelcontextprotocol/client";
import { upstreamUnavailable } from "../../core/errors.js";
import type { Source, SourceContext, SourceState, SourceStatus } from "../../core/source.js";
import { silentLogger, type Logger, type Tool, type ToolContext, type ToolResult } from "../../core/types.js";
import type { EgressConfig } from "../../config/schema/server.js";
import { DEFAULT_BACKOFF, retryWithBackoff, type BackoffOptions } from "./connection/backoff.js";
import { callTask } from "./call/task.js";
import { callTaskV2, TASKS_EXTENSION } from "./call/task-v2.js";
import { callTool, type CallSite } from "./call/tool.js";
import { connect, listAllTools, type McpConnection, type NegotiationMemo } from "./connection/connect.js";
import type { InputDeps } from "../../core/input/requests.js";
import { DEFAULT_INPUT_DEPS } from "./call/upstream-input.js";
import { describeLoadError, PhaseError } from "./load-error.js";
import { requiresTask, toTool } from "./mcp-tool.js";
import { redact } from "./redact.js";
import { remoteFetch, type RemoteFetch } from "./transport/remote-fetch.js";
import { withForwardedBearer } from "../../net/forward-auth.js";
import type { McpServerSpec } from "./config/server-spec.js";
import { StderrTail } from "./transport/stderr-tail.js";
import { filterTools } from "./tool-filter.js";
import type { SurfaceContext, SurfaceItem, SurfaceLists, SurfaceProvider } from "../../core/surface/provider.js";
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
 * never fatal), and heals itself: when the session drops, calls in flight fail at once with
 * 502, the tools stay listed (calls answer 502 meanwhile), and it reconnects with capped,
 * jittered exponential backoff. A server that failed at start is retried the same way.
 */
export class McpServerSource implements Source, SurfaceProvider {
  readonly kind = "mcp" as const;
  readonly name: string;
  /** The server's whole config: a reload with an identical entry keeps this connection (no restart). */
  readonly fingerprint: string;
  private state: SourceState;
  private error?: string;
  private list: Tool[] = [];
  private signature = "";
  /** The server's names of the tools it runs only as tasks (2025-11-25 core tasks). */
  private taskOnly = new Set<string>();
  /** The server serves the 2026 tasks extension: every call opts in to it (the server decides which become tasks). */
  private tasksExtension = false;
  private conn?: McpConnection;
  private ctx?: SourceContext;
  private log: Logger = silentLogger;
  private readonly closing = new AbortController();
  private healing?: Promise<void>;
  private refreshing = false;
  private refreshAgain = false;
  private remote?: RemoteFetch;
  /** What the connection attempts learned about the server's protocol era. */
  private readonly memo: NegotiationMemo = {};
  /** The revision the latest session negotiated (kept while reconnecting). */
  private protocolVersion?: string;
  private protocolReason?: string;
  /** The stderr of the latest start attempt (stdio servers). */
  private stderr = new StderrTail();
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
    this.state = spec.enabled ? "connecting" : "disabled";
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
  }

  async build(ctx: SourceContext): Promise<void> {
    this.ctx = ctx;
    this.log = ctx.logger;
    if (!this.spec.enabled) return;
    try {
      if (this.spec.transport !== "stdio") this.remote = remoteFetch(this.opts.egress, this.spec.url ?? "", this.spec.forwardAuth);
    } catch (err) {
      // A config problem (an unparsable egress rule): retrying cannot fix it.
      this.fail(err);
      return;
    }
    try {
      await this.establish();
    } catch (err) {
      this.fail(err);
      // A remote server may come up later, a stdio one may have hit a passing fault: keep trying.
      this.heal("failed");
    }
  }

  private fail(err: unknown): void {
    const stderr = this.stderr.lines().map((l) => this.scrub(l));
    this.error = this.describeStart(err);
    this.state = "failed";
    this.log.warn({ error: this.error, ...(stderr.length ? { stderr } : {}) }, "mcp server failed to start");
  }

  tools(): readonly Tool[] {
    return this.list;
  }

  status(): SourceStatus {
    return {
      source: this.kind,
      name: this.name,
      state: this.state,
      tools: this.list.length,
      ...(this.protocolVersion ? { protocolVersion: this.protocolVersion } : {}),
      ...(this.protocolVersion && this.protocolReason ? { protocolReason: this.protocolReason } : {}),
      ...(this.error ? { error: this.error } : {}),
    };
  }

  /** Ends the session and any reconnect loop; kills a stdio server's process tree. */
  async close(): Promise<void> {
    if (this.closing.signal.aborted) return;
    this.closing.abort();
    const conn = this.conn;
    this.conn = undefined;
    await Promise.allSettled([conn?.close(), this.healing]);
    await this.remote?.close().catch(() => {});
    if (this.state !== "disabled") this.state = "failed";
    this.error = "closed";
  }

  private async establish(): Promise<void> {
    const signal = this.closing.signal;
    const holder: { conn?: McpConnection; dropped: boolean } = { dropped: false };
    this.stderr = new StderrTail();
    const deps = {
      logger: this.log,
      scrub: (t: string) => this.scrub(t),
      stderr: this.stderr,
      ...(this.remote ? { fetch: this.remote.fetch } : {}),
    };
    const conn = await connect(
      this.spec,
      deps,
      {
        onClose: () => {
          holder.dropped = true;
          if (holder.conn) this.lost(holder.conn, "the connection closed");
        },
        onToolsChanged: () => {
          if (holder.conn && holder.conn === this.conn) void this.refresh();
        },
      },
      signal,
      this.memo,
    );
    try {
      const defs = await listAllTools(conn.client, this.spec.timeout, signal).catch((err: unknown) => {
        throw new PhaseError("tools/list", err);
      });
      await this.surface.load(conn.client, signal);
      signal.throwIfAborted();
      if (holder.dropped) throw new Error("the connection closed during tools/list");
      watchSurface(conn.client, () => {
        if (holder.conn && holder.conn === this.conn) void this.refresh();
      });
      holder.conn = conn;
      this.conn = conn;
      this.subscriptions.attach(conn.client);
      this.state = "connected";
      this.error = undefined;
      this.protocolVersion = conn.protocolVersion || undefined;
      this.protocolReason = conn.protocolReason || undefined;
      this.setTools(defs);
      this.log.info({ tools: this.list.length, wire: conn.wire, protocolVersion: conn.protocolVersion }, "mcp server connected");
    } catch (err) {
      await conn.close();
      throw err;
    }
  }

  /** The session `conn` is gone (crash, network): fail its calls, keep the tools, reconnect. */
  private lost(conn: McpConnection, why: string): void {
    if (conn !== this.conn || this.closing.signal.aborted) return;
    this.conn = undefined;
    void conn.close();
    this.error = `${why}; reconnecting`;
    this.log.warn({ reason: why }, "mcp server connection lost; reconnecting");
    this.heal("reconnecting");
  }

  private heal(waiting: "reconnecting" | "failed"): void {
    if (this.healing || this.closing.signal.aborted) return;
    this.state = waiting;
    this.healing = retryWithBackoff(
      () => this.establish(),
      this.closing.signal,
      this.opts.backoff ?? DEFAULT_BACKOFF,
      (err, n) => {
        this.error = this.describeStart(err);
        this.log.debug({ attempt: n, error: this.error }, "mcp reconnect attempt failed");
      },
    )
      .then((ok) => {
        if (ok) this.log.info("mcp server reconnected");
      })
      .finally(() => {
        this.healing = undefined;
      });
  }

  /** Re-lists after notifications/tools/list_changed; bursts collapse into one more pass. */
  private async refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    try {
      do {
        this.refreshAgain = false;
        const conn = this.conn;
        if (!conn) return;
        try {
          const defs = await listAllTools(conn.client, this.spec.timeout, this.closing.signal);
          const surfaceChanged = await this.surface.load(conn.client, this.closing.signal);
          if (conn === this.conn && !this.setTools(defs) && surfaceChanged) this.ctx?.onToolsChanged();
        } catch (err) {
          this.log.warn({ error: this.describe(err) }, "mcp tools/list after list_changed failed; keeping the previous tools");
        }
      } while (this.refreshAgain && !this.closing.signal.aborted);
    } finally {
      this.refreshing = false;
    }
  }

  /** Takes a fresh tool list; true when it changed (and the toolkit was told). */
  private setTools(listed: McpToolDef[]): boolean {
    this.tasksExtension = this.conn ? servesTasksExtension(this.conn) : false;
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
    return this.surface.read(this.live().client, uri, this.forwarded(ctx));
  }

  getPrompt(name: string, args: Record<string, string> | undefined, ctx: SurfaceContext): Promise<SurfaceItem> {
    return this.surface.getPrompt(this.live().client, name, args, this.forwarded(ctx));
  }

  complete(params: SurfaceItem, ctx: SurfaceContext): Promise<SurfaceItem> {
    return this.surface.complete(this.live().client, params, this.forwarded(ctx));
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

  /** The current session; 502 while there is none. */
  private live(): McpConnection {
    const conn = this.conn;
    if (!conn || this.state !== "connected") {
      throw upstreamUnavailable(`MCP server "${this.name}" is ${this.state === "reconnecting" ? "reconnecting" : "not connected"}`);
    }
    return conn;
  }

  // Only a forwardAuth server gets the caller's bearer (as its tool calls do).
  private forwarded(ctx: SurfaceContext): SurfaceContext {
    return this.spec.forwardAuth ? ctx : { ...(ctx.signal ? { signal: ctx.signal } : {}) };
  }

  /** One tools/call on the current session; 502 while there is none. */
  private async call(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const conn = this.conn;
    if (!conn || this.state !== "connected") {
      throw upstreamUnavailable(`MCP server "${this.name}" is ${this.state === "reconnecting" ? "reconnecting" : "not connected"}`);
    }
    // forwardAuth: the JWT caller's token (or the one exchanged for it) goes on this call's requests (never an API key: ctx.auth is JWT-only).
    const bearer = this.spec.forwardAuth ? ctx.auth : undefined;
    // The 2026 tasks extension on the session's raw path; 2025-11-25 core tasks through ext-tasks.
    const run = this.tasksExtension ? callTaskV2 : this.taskOnly.has(tool) ? callTask : callTool;
    const result = await withForwardedBearer(bearer, () => run(conn, this.site, tool, args, ctx));
    return exposeResultUris(result, this.surfacePrefix);
  }

  private readonly site: CallSite = {
    server: "",
    isLost: (conn) => conn !== this.conn,
    lose: (conn, why) => this.lost(conn, why),
    scrub: (text) => this.scrub(text),
    input: DEFAULT_INPUT_DEPS,
  };

  /** Why a start attempt failed, with what a stdio server last wrote to stderr, if anything. */
  private describeStart(err: unknown): string {
    const stderr = this.stderr.lines().map((l) => this.scrub(l));
    return stderr.length ? `${this.describe(err)}; its stderr ended with: ${stderr.join(" | ")}` : this.describe(err);
  }

  /** An error text fit for status and logs: phase named, secrets scrubbed. */
  private describe(err: unknown): string {
    return this.scrub(describeLoadError(err, this.spec.timeout));
  }

  private scrub(text: string): string {
    return redact(text, [...this.spec.secrets, ...(this.opts.secrets ?? [])]);
  }
}
