import {
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type FetchLike,
  type Transport,
} from "@modelcontextprotocol/client";
import type { Logger } from "../../../core/types.js";
import type { WireKind } from "../config/negotiation.js";
import type { McpServerSpec } from "../config/server-spec.js";
import type { StderrTail } from "./stderr-tail.js";
import { jsonLinesFetch } from "./json-lines-fetch.js";
import { ProcessGroupStdioTransport } from "./stdio.js";

/** What a transport needs from its source beyond the spec. */
export interface TransportDeps {
  logger: Logger;
  /** fetch for remote servers: the egress guard's (see remote-fetch.ts). */
  fetch?: FetchLike;
  /** Removes secrets from text bound for the log (stderr lines, transport errors). */
  scrub?: (text: string) => string;
  /** Keeps a stdio server's last stderr lines (scrubbed), to explain a failed start. */
  stderr?: StderrTail;
}

/** The wires to try, in order, for a spec: `remote` tries streamable HTTP, then SSE. */
export function wiresFor(spec: McpServerSpec): WireKind[] {
  switch (spec.transport) {
    case "stdio":
      return ["stdio"];
    case "sse":
      return ["sse"];
    case "streamable-http":
      return ["streamable-http"];
    default:
      return ["streamable-http", "sse"];
  }
}

/** A new, unstarted transport of that kind for the server. */
export function createTransport(spec: McpServerSpec, wire: WireKind, deps: TransportDeps): Transport {
  if (wire === "stdio") {
    return new ProcessGroupStdioTransport({
      command: spec.command ?? "",
      args: spec.args,
      env: spec.env,
      inheritEnv: spec.inheritEnv,
      ...(spec.runAs ? { runAs: spec.runAs } : {}),
      ...(spec.cwd ? { cwd: spec.cwd } : {}),
      // A server's stderr is its own log: kept at debug, tagged by the source's logger bindings.
      // Chatty servers (FastMCP logs a line per request) must cost little when debug is off: the
      // start-up tail keeps raw lines in a bounded ring (scrubbed when read), and a line is
      // scrubbed and wrapped for the log only when it will be written.
      onStderr: (line) => {
        deps.stderr?.push(line);
        if (!debugEnabled(deps.logger)) return;
        deps.logger.debug({ stderr: deps.scrub ? deps.scrub(line) : line }, "mcp server stderr");
      },
    });
  }
  const url = new URL(spec.url ?? "");
  const opts = {
    requestInit: { headers: spec.headers },
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  };
  if (wire === "sse") return new SSEClientTransport(url, opts);
  return new StreamableHTTPClientTransport(url, { ...opts, fetch: jsonLinesFetch(deps.fetch ?? fetch) });
}

/** False only when the logger says debug lines are off (pino's isLevelEnabled); unknown loggers get every line. */
function debugEnabled(logger: Logger): boolean {
  return (logger as { isLevelEnabled?(level: string): boolean }).isLevelEnabled?.("debug") !== false;
}

// Statuses with which a server that only speaks the older HTTP+SSE protocol answers a POST.
const NOT_STREAMABLE = new Set([400, 404, 405, 406, 415]);

/**
 * True when a streamable-HTTP attempt failed because the server does not speak that protocol
 * (it answered, but not as a streamable-HTTP endpoint) so SSE is worth a try. An unreachable
 * server or a timeout is not retried over SSE: it would only double the wait.
 */
export function shouldFallBackToSse(err: unknown): boolean {
  if (!(err instanceof SdkHttpError)) return false;
  return err.code === SdkErrorCode.ClientHttpUnexpectedContent || NOT_STREAMABLE.has(err.status);
}
