/**
 * `tools/call` on an MCP Server, in both protocol eras: from the request's envelope, retry
 * state and session to one call of the pipeline, and its result back as MCP's. Apart from
 * catalog-server.ts, which builds the Servers and answers the listings, because a call is the
 * one handler that reaches tasks, input requests, relays and held calls.
 */
import {
  ProtocolError,
  LOG_LEVEL_META_KEY,
  MissingRequiredClientCapabilityError,
  type CallToolRequest,
  type CallToolResult,
  type InputRequiredResult,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { isToolnexusError, ToolnexusError } from "../../core/errors.js";
import type { Answer } from "../../core/types.js";
import { ownerKey } from "../auth/index.js";
import { bindAbort, onSignalAbort, type AbortListen } from "../calls/bind-abort.js";
import type { CallPipeline } from "../calls/call-pipeline.js";
import type { CatalogViews } from "../catalog/view.js";
import { scrubDeep } from "../observability/scrub-deep.js";
import type { ServiceState } from "../service/service-state.js";
import type { InFlightMcpCalls } from "./in-flight.js";
import { answerOf, toInputRequired } from "./input/client-input.js";
import { isMetaTool } from "./discovery.js";
import { answerMetaTool } from "./discovery-tools.js";
import {
  clientCapabilitiesOf,
  invalidArgumentsResult,
  JsonRpcError,
  missingCapabilities,
  toCallToolResult,
  toJsonRpcError,
} from "./results.js";
import { stdioAsk } from "./input/stdio-ask.js";
import { legacyLoginRequired } from "./input/login-required.js";
import type { McpTasks } from "./tasks/tasks.js";
import type { LegacyRelay } from "./input/legacy-relay.js";
import type { HeldRetry } from "./input/held-retry.js";
import type { McpSession } from "./session.js";

const clientClosed = () => new ToolnexusError("CLIENT_CLOSED", "The client closed the connection");

/** The `tools/call` handler of the catalog's MCP Servers (and of the plain path). */
export class McpToolCalls {
  constructor(
    private readonly state: ServiceState,
    private readonly views: CatalogViews,
    private readonly pipeline: CallPipeline,
    /** Scrubs secrets from what a caller is told. */
    private readonly scrub: (s: string) => string,
    /** `tools/call` requests in flight on this replica, for notifications/cancelled. */
    private readonly inFlight: InFlightMcpCalls,
    /** True when a call of the tool may bring an upstream's log messages (and so ask mid-call). */
    private readonly relaysLogs: (name: unknown) => boolean,
    /** Server-to-client requests for 2025 clients, where executions exist to carry the answers. */
    private readonly relay?: LegacyRelay,
    /** A 2026 client's plain call whose upstream asks mid-call: input_required, answered by retry. */
    private readonly heldRetry?: HeldRetry,
  ) {}

  /**
   * `tools/call` through the one pipeline. Arguments failing the schema come back as an isError
   * result; an unknown or forbidden tool and every other failure as a JSON-RPC error.
   * The plain path calls it too, with a context of its own.
   */
  async call(
    session: McpSession,
    params: CallToolRequest["params"],
    ctx: ServerContext,
    tasks?: McpTasks,
    /** The SDK Server of a stateful connection (stdio), which can ask its 2025 client itself. */
    peer?: Server,
  ): Promise<CallToolResult | InputRequiredResult> {
    const { caller } = session;
    const { mcpReq } = ctx;
    const requestId = session.requestId(mcpReq.id);
    const progressToken = params._meta?.progressToken;
    // A 2026 client gets log messages only for a request that names a level; a 2025 client
    // always (over stateless HTTP, its logging/setLevel lasts only for its own request).
    // The SDK's ctx.mcpReq.log applies the level and relates the message to this request.
    const envelope = mcpReq.envelope as Record<string, unknown> | undefined;
    const wantsLogs = envelope === undefined || envelope[LOG_LEVEL_META_KEY] !== undefined;
    // A 2026-era request carries its envelope; only such a client can answer input_required.
    const modern = envelope !== undefined;
    // A 2025 client over stdio is asked on its own connection, in the SDK's 2025 terms (stdio-ask.ts).
    const peerCaps = !modern && session.transport === "stdio" ? peer?.getClientCapabilities() : undefined;
    const direct = peerCaps ? stdioAsk(ctx, peerCaps) : undefined;
    const caps = modern ? clientCapabilitiesOf(envelope) : direct ? (peerCaps as Record<string, unknown>) : {};
    const input = { sealer: this.state.sealer, inputTimeoutMs: this.state.loaded.config.server.inputTimeoutMs };
    try {
      // search_tools, or a malformed call_tool (a well-formed one arrives unwrapped: discovery.ts).
      if (session.discovery && isMetaTool(params.name))
        return answerMetaTool(this.views, this.scrub, caller, params.name, params.arguments);
      const support = tasks?.supportOf(params.name);
      if (tasks && support) {
        // A client without the extension gets a plain call, unless the tool runs only as a task.
        if (tasks.optedIn(ctx)) return (await tasks.call(caller, requestId, params, ctx, support)) as CallToolResult;
        if (support === "required") throw tasks.missingCapability();
      }
      // On stdio the SDK's 2025 shim asks an input_required result's questions and calls again with the state.
      const requestState = modern || direct ? mcpReq.requestState() : undefined;
      // The retry of a held call's input_required: it answers the call running wherever it is.
      const resumed =
        typeof requestState === "string"
          ? await this.heldRetry?.resume(caller, params.name, requestState, mcpReq.inputResponses ?? {}, mcpReq.signal)
          : undefined;
      if (resumed) return "result" in resumed ? toCallToolResult(resumed.result) : resumed.inputRequired;
      // A retry: its state is opened before the call runs (a forged one is refused here).
      const answer =
        typeof requestState === "string"
          ? answerOf(requestState, mcpReq.inputResponses ?? {}, params.name, ownerKey(caller), input)
          : undefined;
      const relayed = !modern && session.relay ? this.relay?.call(caller, params.name, requestId, session.relay) : undefined;
      // Only an MCP server's tool can ask mid-call.
      const held =
        modern && !answer && this.relaysLogs(params.name) ? this.heldRetry?.start(caller, params.name, requestId, caps) : undefined;
      // A promoted call outlives this request: its end no longer cancels the call (its execution's cancel does).
      const listen: AbortListen<AbortSignal> = held ? (s, abort) => onSignalAbort(s, () => !held.promoted && abort()) : onSignalAbort;
      const callWith = (answer: Answer | undefined) =>
        this.pipeline.call(
          params.name,
          { arguments: params.arguments ?? {}, ...(answer ? { answer } : {}) },
          {
            caller,
            requestId,
            transport: session.transport ?? "mcp",
            log: session.log,
            clientCapabilities: caps,
            onStart: (call) => {
              relayed?.bind(call);
              this.inFlight.add(ownerKey(caller), mcpReq.id, call);
              // The SDK aborts this signal when the transport closes: over HTTP, the response stream.
              held?.bind(call);
              bindAbort(call, mcpReq.signal, listen, clientClosed);
            },
            ...(progressToken === undefined
              ? {}
              : {
                  onProgress: (p) => {
                    mcpReq.notify({ method: "notifications/progress", params: { progressToken, ...p } }).catch(() => {});
                  },
                }),
            ...(wantsLogs ? { onLog: (m) => void mcpReq.log(m.level, scrubDeep(m.data, this.scrub), m.logger).catch(() => {}) } : {}),
            ...(relayed || held ? { onInputRequest: (relayed ?? held)!.ask } : direct ? { onInputRequest: direct } : {}),
          },
        );
      const first = modern || direct ? callWith(answer) : callWith(answer).then(legacyLoginRequired);
      // A 2025 HTTP client is asked a pending's questions on its stream; the call ends with the last round.
      const run = relayed ? first.then((r) => relayed.answerPendings(r, callWith)) : first;
      relayed?.track(run);
      const outcome = held ? await held.settle(run) : { result: await run };
      if ("inputRequired" in outcome) return outcome.inputRequired;
      const { result } = outcome;
      const missing = missingCapabilities(result);
      // A 2026 client is told in kind that the upstream needs a client capability (-32021, HTTP 400).
      if (missing && modern) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: missing }, result.output);
      return (
        (modern || direct ? toInputRequired(result, params.name, ownerKey(caller), caps, input) : undefined) ?? toCallToolResult(result)
      );
    } catch (err) {
      if (err instanceof MissingRequiredClientCapabilityError) throw err;
      if (isToolnexusError(err, "INVALID_ARGUMENTS")) return invalidArgumentsResult(err, this.scrub);
      if (err instanceof JsonRpcError || err instanceof ProtocolError) throw err;
      throw toJsonRpcError(
        isToolnexusError(err) ? err : new ToolnexusError("INTERNAL", "Internal error", { cause: err }),
        requestId,
        this.scrub,
      );
    }
  }
}
