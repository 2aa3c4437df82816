// How an MCP server source stays connected: the first connection, reconnecting with backoff when
// the session drops, re-listing on list_changed, and the state /status shows. Kept apart from
// mcp-server-source.ts, which holds what the source serves (its tools, surface and calls).
import type { Client, Tool as McpToolDef } from "@modelcontextprotocol/client";
import { upstreamUnavailable } from "../../../core/errors.js";
import type { SourceState } from "../../../core/source.js";
import type { Logger } from "../../../core/types.js";
import type { EgressConfig } from "../../../config/schema/server.js";
import type { McpServerSpec } from "../config/server-spec.js";
import { describeLoadError, PhaseError } from "../load-error.js";
import { remoteFetch, type RemoteFetch } from "../transport/remote-fetch.js";
import { StderrTail } from "../transport/stderr-tail.js";
import { DEFAULT_BACKOFF, retryWithBackoff, type BackoffOptions } from "./backoff.js";
import { connect, listAllTools, type McpConnection, type NegotiationMemo } from "./connect.js";

/** What the session asks of its source: loading what a session serves, and taking it. */
interface SessionLists {
  /** Lists the server's resources, templates and prompts on `client`; true when they changed. */
  loadSurface(client: Client, signal: AbortSignal): Promise<boolean>;
  /** Takes a session just established, with its tools; `onListChanged` re-lists them. */
  connected(conn: McpConnection, defs: McpToolDef[], onListChanged: () => void): void;
  /** Takes the tools of the current session `conn`, listed again after a list_changed. */
  relisted(conn: McpConnection, defs: McpToolDef[], surfaceChanged: boolean): void;
}

/** What a session needs beside its server's spec. */
export interface SessionDeps {
  /** The config's `egress` section, for remote servers. */
  egress?: EgressConfig;
  backoff?: BackoffOptions;
  /** The source's logger (set at its build). */
  log(): Logger;
  /** Removes the source's secrets from a text it keeps or logs. */
  scrub(text: string): string;
  lists: SessionLists;
}

/**
 * The session of one MCP server source. A failure to connect is `failed`, never fatal; when
 * the session drops, calls in flight fail at once (502), the source keeps its tools, and it
 * reconnects with capped, jittered exponential backoff. A server that failed at start is
 * retried the same way.
 */
export class HealingSession {
  private stateNow: SourceState;
  private errorNow?: string;
  private conn?: McpConnection;
  private readonly closing = new AbortController();
  private healing?: Promise<void>;
  private refreshing = false;
  private refreshAgain = false;
  private remote?: RemoteFetch;
  /** What the connection attempts learned about the server's protocol era. */
  private readonly memo: NegotiationMemo = {};
  /** The revision the latest session negotiated (kept while reconnecting). */
  private negotiated?: { version?: string; reason?: string };
  /** The stderr of the latest start attempt (stdio servers). */
  private stderr = new StderrTail();

  constructor(
    private readonly spec: McpServerSpec,
    private readonly deps: SessionDeps,
  ) {
    this.stateNow = spec.enabled ? "connecting" : "disabled";
  }

  /** Where the session is: connecting, connected, reconnecting, failed or disabled. */
  get state(): SourceState {
    return this.stateNow;
  }

  /** Why the latest attempt failed or the session dropped, scrubbed; undefined while connected. */
  get error(): string | undefined {
    return this.errorNow;
  }

  /** The protocol revision the latest session negotiated. */
  get protocolVersion(): string | undefined {
    return this.negotiated?.version;
  }

  /** Why that revision. */
  get protocolReason(): string | undefined {
    return this.negotiated?.reason;
  }

  /** The session calls run on now; undefined while there is none. */
  get current(): McpConnection | undefined {
    return this.conn;
  }

  /** The current session; 502 while there is none. */
  live(): McpConnection {
    const conn = this.conn;
    if (!conn || this.stateNow !== "connected") {
      throw upstreamUnavailable(`MCP server "${this.spec.name}" is ${this.stateNow === "reconnecting" ? "reconnecting" : "not connected"}`);
    }
    return conn;
  }

  /** Connects for the first time; a failure is recorded and retried in the background. */
  async start(): Promise<void> {
    if (!this.spec.enabled) return;
    try {
      if (this.spec.transport !== "stdio") this.remote = remoteFetch(this.deps.egress, this.spec.url ?? "", this.spec.forwardAuth);
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
    const stderr = this.stderr.lines().map((l) => this.deps.scrub(l));
    this.errorNow = this.describeStart(err);
    this.stateNow = "failed";
    this.deps.log().warn({ error: this.errorNow, ...(stderr.length ? { stderr } : {}) }, "mcp server failed to start");
  }

  /** Ends the session and any reconnect loop; kills a stdio server's process tree. */
  async close(): Promise<void> {
    if (this.closing.signal.aborted) return;
    this.closing.abort();
    const conn = this.conn;
    this.conn = undefined;
    await Promise.allSettled([conn?.close(), this.healing]);
    await this.remote?.close().catch(() => {});
    if (this.stateNow !== "disabled") this.stateNow = "failed";
    this.errorNow = "closed";
  }

  private async establish(): Promise<void> {
    const signal = this.closing.signal;
    const holder: { conn?: McpConnection; dropped: boolean } = { dropped: false };
    const listChanged = () => {
      if (holder.conn && holder.conn === this.conn) void this.refresh();
    };
    this.stderr = new StderrTail();
    const deps = {
      logger: this.deps.log(),
      scrub: (t: string) => this.deps.scrub(t),
      stderr: this.stderr,
      ...(this.remote ? { fetch: this.remote.fetch } : {}),
    };
    const hooks = {
      onClose: () => {
        holder.dropped = true;
        if (holder.conn) this.lost(holder.conn, "the connection closed");
      },
      onToolsChanged: listChanged,
    };
    const conn = await connect(this.spec, deps, hooks, signal, this.memo);
    try {
      const defs = await listAllTools(conn.client, this.spec.timeout, signal).catch((err: unknown) => {
        throw new PhaseError("tools/list", err);
      });
      await this.deps.lists.loadSurface(conn.client, signal);
      signal.throwIfAborted();
      if (holder.dropped) throw new Error("the connection closed during tools/list");
      holder.conn = conn;
      this.conn = conn;
      this.stateNow = "connected";
      this.errorNow = undefined;
      this.negotiated = { version: conn.protocolVersion || undefined, reason: conn.protocolReason || undefined };
      this.deps.lists.connected(conn, defs, listChanged);
    } catch (err) {
      await conn.close();
      throw err;
    }
  }

  /** The session `conn` is gone (crash, network): fail its calls, keep the tools, reconnect. */
  lost(conn: McpConnection, why: string): void {
    if (conn !== this.conn || this.closing.signal.aborted) return;
    this.conn = undefined;
    void conn.close();
    this.errorNow = `${why}; reconnecting`;
    this.deps.log().warn({ reason: why }, "mcp server connection lost; reconnecting");
    this.heal("reconnecting");
  }

  private heal(waiting: "reconnecting" | "failed"): void {
    if (this.healing || this.closing.signal.aborted) return;
    this.stateNow = waiting;
    this.healing = retryWithBackoff(
      () => this.establish(),
      this.closing.signal,
      this.deps.backoff ?? DEFAULT_BACKOFF,
      (err, n) => {
        this.errorNow = this.describeStart(err);
        this.deps.log().debug({ attempt: n, error: this.errorNow }, "mcp reconnect attempt failed");
      },
    )
      .then((ok) => {
        if (ok) this.deps.log().info("mcp server reconnected");
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
          const surfaceChanged = await this.deps.lists.loadSurface(conn.client, this.closing.signal);
          if (conn === this.conn) this.deps.lists.relisted(conn, defs, surfaceChanged);
        } catch (err) {
          this.deps.log().warn({ error: this.describe(err) }, "mcp tools/list after list_changed failed; keeping the previous tools");
        }
      } while (this.refreshAgain && !this.closing.signal.aborted);
    } finally {
      this.refreshing = false;
    }
  }

  /** Why a start attempt failed, with what a stdio server last wrote to stderr, if anything. */
  private describeStart(err: unknown): string {
    const stderr = this.stderr.lines().map((l) => this.deps.scrub(l));
    return stderr.length ? `${this.describe(err)}; its stderr ended with: ${stderr.join(" | ")}` : this.describe(err);
  }

  /** An error text fit for status and logs: phase named, secrets scrubbed. */
  private describe(err: unknown): string {
    return this.deps.scrub(describeLoadError(err, this.spec.timeout));
  }
}
