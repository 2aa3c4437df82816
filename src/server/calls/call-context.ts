import type { FastifyBaseLogger } from "fastify";
import type { Toolkit } from "../../core/toolkit.js";
import type { Answer, LogMessage, Progress, Tool, ToolContext, ToolResult, UpstreamCredential } from "../../core/types.js";
import { ownerKey, type Caller } from "../auth/index.js";
import type { CallSignal } from "./call-signal.js";
import { errorWithoutBearer, withoutBearer } from "./upstream-credentials.js";

// What one call carries through the pipeline: the options a transport passes, the call once
// checked, and the ToolContext the tool runs with.

/** How a call reached the service; the `transport` field of its log line. */
type Transport = "rest" | "sse" | "mcp" | "stdio" | "execution";

/** A call that passed lookup, the caller's allowlist, limits and argument validation. */
export interface PreparedCall {
  tool: Tool;
  args: Record<string, unknown>;
  timeoutMs: number;
  answer?: Answer;
  /** Held until the tool's work is done; {@link CallPipeline.release} when the call never runs. */
  toolkit: Toolkit;
}

/** What one call carries besides its envelope. */
export interface CallOptions {
  caller: Caller;
  requestId: string;
  transport: Transport;
  log: FastifyBaseLogger;
  /** Upper bound of the envelope's timeoutMs (default `server.maxTimeoutMs`). */
  maxTimeoutMs?: number;
  /** Called once the call passed every check and before the tool runs: bind abort sources to `call` here. */
  onStart?(call: CallSignal): void;
  /** Receives the tool's progress reports. */
  onProgress?(p: Progress): void;
  /**
   * Reaches the caller when the tool asks mid-call (the call is held meanwhile): an
   * execution's `input_required`, a synchronous call promoted to one. Absent: nobody can answer.
   */
  onInputRequest?: ToolContext["onInputRequest"];
  /** Receives the upstream's log messages (only transports that can deliver them set it). */
  onLog?(m: LogMessage): void;
  /** An MCP client's declared capabilities: which input requests it can answer (ToolContext.clientCapabilities). */
  clientCapabilities?: Record<string, unknown>;
  /** Called with the duration when the call ended, whatever the outcome (e.g. a Server-Timing header). */
  onEnd?(ms: number): void;
}

/** The ToolContext of one call. A class, so `signal` stays a cheap lazy getter on a stable shape. */
export class CallContext implements ToolContext {
  readonly caller: string;
  readonly callerKey: string;
  /** What goes upstream for a `forwardAuth` tool and a JWT caller only (API keys never leave): see UpstreamCredentials. */
  auth?: UpstreamCredential;
  clientCapabilities?: Record<string, unknown>;
  /** Asks the caller with the call's deadline paused meanwhile (the wait is bounded by inputTimeoutMs instead). */
  readonly onInputRequest?: ToolContext["onInputRequest"];
  constructor(
    private readonly call: CallSignal,
    readonly timeout: number,
    readonly requestId: string,
    caller: Caller,
    readonly answer?: Answer,
    readonly onProgress?: (p: Progress) => void,
    ask?: ToolContext["onInputRequest"],
    readonly onLog?: (m: LogMessage) => void,
  ) {
    this.caller = caller.id;
    this.callerKey = ownerKey(caller);
    this.onInputRequest = ask && ((requests) => call.pausedWhile(ask(requests)));
  }
  get signal(): AbortSignal {
    return this.call.signal;
  }
}

/** Runs the tool with `auth` (if any) as its ctx.auth; the token never comes back out in a result or an error. */
export function execute(p: PreparedCall, ctx: CallContext, auth: UpstreamCredential | undefined): Promise<ToolResult> {
  if (auth === undefined) return p.tool.execute(p.args, ctx);
  ctx.auth = auth;
  const { bearer } = auth;
  return p.tool.execute(p.args, ctx).then(
    (result) => withoutBearer(result, bearer),
    (err: unknown) => {
      throw errorWithoutBearer(err, bearer);
    },
  );
}
