import type { UpstreamAuth } from "./upstream-auth.js";

/**
 * The one type every source produces, and the values that travel with a call.
 * Every transport and source speaks these shapes (docs/architecture.md, "Layers").
 */

/** Where a tool comes from. Fixed vocabulary, part of the wire contract. */
export type ToolSource = "mcp" | "skill" | "builtin" | "native" | "http" | "a2a" | "custom";

/** A JSON-Schema object describing a tool's arguments. */
export type JSONSchema = Record<string, unknown>;

/** What a tool returns. `isError: true` is an outcome the model reads, not a failure of our code. */
export interface ToolResult {
  output: string;
  isError: boolean;
  metadata?: Record<string, unknown>;
}

/** An out-of-band request a suspended tool is waiting on. Keys are wire-fixed. */
export interface PendingRequest {
  id: string;
  kind: string;
  prompt: string;
  url?: string;
  data?: Record<string, unknown>;
  expiresAt?: string;
}

/** The resolution of a {@link PendingRequest}, handed back on the resumed call. */
export interface Answer {
  id: string;
  ok: boolean;
  data?: Record<string, unknown>;
  reason?: string;
}

/** A progress notification a long-running tool may report. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** The severities of a log message, least severe first (RFC 5424, as MCP names them). */
type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";

/** A log message a tool's upstream sent during a call (MCP `notifications/message`). */
export interface LogMessage {
  level: LogLevel;
  logger?: string;
  data: unknown;
}

/**
 * What a call sends upstream for its caller: a bearer token as `Authorization: Bearer`, or, for
 * a user secret, `header` as configured (`bearer` is then the secret itself, so it can be
 * scrubbed from what comes back).
 */
export interface UpstreamCredential {
  bearer: string;
  header?: { name: string; value: string };
}

/** Per-call context. Every field is optional: a tool must work when ctx is absent. */
export interface ToolContext {
  /** Aborts on client disconnect, timeout or shutdown. */
  signal?: AbortSignal;
  /** Milliseconds left for this call. */
  timeout?: number;
  /** Present only on a resumed call after a suspension. */
  answer?: Answer;
  /**
   * What the caller can answer when the tool asks for input: the `elicitation`, `sampling` and
   * `roots` client capabilities an MCP client declared. Absent: all of them (a REST caller
   * gets any pending).
   */
  clientCapabilities?: Record<string, unknown>;
  requestId?: string;
  /** The authenticated principal (API key id or JWT `sub`), when auth is on. */
  caller?: string;
  /**
   * The principal with how it authenticated (`apiKey:<id>`, `jwt:<sub>`; `anonymous` when auth
   * is off): what state sealed for the caller is bound to, so a JWT whose `sub` equals an API
   * key's id never opens that key's state.
   */
  callerKey?: string;
  /**
   * The credentials to send upstream for the caller: its own token (passthrough) or one issued
   * for the upstream by a token exchange (`upstreamAuth`), or the caller's own upstream credential
   * from the vault (user-oauth, user-secret). An API key is a gateway credential and is never
   * here; only tools with `forwardAuth: true` get it. Never log it.
   */
  auth?: UpstreamCredential;
  onProgress?: (p: Progress) => void;
  /**
   * Asks the caller while the call is held (an upstream's elicitation, sampling or roots
   * request mid-call) and resolves with the caller's responses, keyed as asked (the
   * `inputRequests` / `inputResponses` maps of core/input/requests.ts). Absent when no answer
   * can reach a caller; rejects with INPUT_TIMEOUT when none came within `inputTimeoutMs`.
   */
  onInputRequest?(
    requests: Record<string, { method: string; params?: Record<string, unknown> }>,
  ): Promise<Record<string, Record<string, unknown>>>;
  /** Receives the upstream's log messages; absent when the caller asked for none. */
  onLog?: (m: LogMessage) => void;
}

/** A named, described, schema'd callable. */
export interface Tool {
  name: string;
  description: string;
  inputSchema: JSONSchema;
  source: ToolSource;
  /** The tool sends a JWT caller's bearer upstream (its source says `forwardAuth` or `upstreamAuth`): only such tools get `ctx.auth`. */
  forwardAuth?: boolean;
  /** Which bearer a `forwardAuth` tool gets: the caller's own (passthrough, the default) or an exchanged one. */
  upstreamAuth?: UpstreamAuth;
  /**
   * What an MCP server declared beyond name, description and input schema, as it sent it:
   * display `title`, `outputSchema` (its structured results), `annotations` (hints such as
   * readOnlyHint) and `icons`. Kept so the gateway can hand them on unchanged.
   */
  title?: string;
  outputSchema?: JSONSchema;
  annotations?: Record<string, unknown>;
  icons?: Record<string, unknown>[];
  /**
   * The tool's `_meta` as its MCP server declared it (an MCP App's `ui` key among them, its
   * `resourceUri` in the catalog's form), handed on unchanged on `tools/list` and in REST metadata.
   */
  meta?: Record<string, unknown>;
  /**
   * Whether `/mcp` may run a call as a task (the MCP tasks extension): `optional` (a task unless it
   * settles quickly), `required` (always a task). An MCP server's tool keeps its own
   * `execution.taskSupport`; the config's `server.mcp.taskSupport` overrides it.
   */
  taskSupport?: "optional" | "required";
  /**
   * A `required` task tool whose first question comes before its task (the MRTR round): on
   * `/mcp` an input request within `server.mcp.taskAfterMs` is answered `input_required`, and
   * the task comes with the answer's round. Without it a required tool's questions are the task's.
   */
  inputBeforeTask?: boolean;
  execute(args: Record<string, unknown>, ctx?: ToolContext): Promise<ToolResult>;
}

/** The listing shape of a tool: a Tool without its behaviour. */
export type ToolInfo = Pick<Tool, "name" | "description" | "inputSchema" | "source">;

/** Minimal structured logger; pino satisfies it. Core never imports a logging library. */
export interface Logger {
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  child?(bindings: Record<string, unknown>): Logger;
}

/** A logger that drops everything; the default for library use. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
