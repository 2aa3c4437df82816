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

/** Per-call context. Every field is optional: a tool must work when ctx is absent. */
export interface ToolContext {
  /** Aborts on client disconnect, timeout or shutdown. */
  signal?: AbortSignal;
  /** Milliseconds left for this call. */
  timeout?: number;
  /** Present only on a resumed call after a suspension. */
  answer?: Answer;
  requestId?: string;
  /** The authenticated principal (API key id or JWT `sub`), when auth is on. */
  caller?: string;
  /**
   * The credentials to send upstream for the caller: its own token (passthrough) or one issued
   * for the upstream by a token exchange (`upstreamAuth`). Set only for JWT callers (an API key
   * is a gateway credential and is never here) and only for tools with `forwardAuth: true`.
   * Never log it.
   */
  auth?: { bearer: string };
  onProgress?: (p: Progress) => void;
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
