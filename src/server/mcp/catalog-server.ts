import type { FastifyBaseLogger } from "fastify";
import {
  McpServer,
  ProtocolError,
  LOG_LEVEL_META_KEY,
  MissingRequiredClientCapabilityError,
  Server,
  type CallToolRequest,
  type CallToolResult,
  type InputRequiredResult,
  type ListToolsResult,
  type RequestId,
  type ServerContext,
  type ServerOptions,
} from "@modelcontextprotocol/server";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import { isToolnexusError, ToolnexusError } from "../../core/errors.js";
import type { Answer } from "../../core/types.js";
import { ownerKey, type Caller } from "../auth/index.js";
import { bindAbort, onSignalAbort, type AbortListen } from "../calls/bind-abort.js";
import type { CallPipeline } from "../calls/call-pipeline.js";
import type { CatalogViews } from "../catalog/view.js";
import { scrubDeep } from "../observability/scrub-deep.js";
import type { ServiceState } from "../service/service-state.js";
import { InFlightMcpCalls } from "./in-flight.js";
import { McpSkills } from "./skills/extension.js";
import { getPrompt, hasSkills, listPrompts } from "./skills/prompt.js";
import { listToolsPage, pageOf } from "./tools-listing.js";
import { answerOf, toInputRequired } from "./input/client-input.js";
import { discoveryOf, isMetaTool, type Discovery } from "./discovery.js";
import { answerMetaTool, discoveryListing } from "./discovery-tools.js";
import {
  clientCapabilitiesOf,
  invalidArgumentsResult,
  JsonRpcError,
  missingCapabilities,
  toCallToolResult,
  toJsonRpcError,
} from "./results.js";
import { TASKS_EXTENSION } from "../../sources/mcp/call/task-v2.js";
import { stdioAsk } from "./input/stdio-ask.js";
import { legacyLoginRequired } from "./input/login-required.js";
import { registerTaskMethods } from "./tasks/methods.js";
import type { McpTasks } from "./tasks/tasks.js";
import type { LegacyRelay, RelaySink } from "./input/legacy-relay.js";
import type { HeldRetry } from "./input/held-retry.js";
import { VERSION as version } from "../../version.js";
import { registerSurface, surfaceCapabilities } from "./surface/register.js";
import { SurfaceMethods, surfaceAuditCall } from "./surface/surface-methods.js";
import type { SessionSubscriptions } from "./surface/subscriptions.js";

const clientClosed = () => new ToolnexusError("CLIENT_CLOSED", "The client closed the connection");
// How long a 2026-era client may keep a tools/list. Short, because a reload changes it; a client
// that holds a subscriptions/listen stream hears of the change at once anyway.
const LIST_TTL_MS = 60_000;

/** Who an MCP connection serves and how its calls are identified in logs. */
export interface McpSession {
  caller: Caller;
  log: FastifyBaseLogger;
  /** The request id of a call's log line and error data (over HTTP, the HTTP request's id). */
  requestId(id: RequestId): string;
  /** How calls of this session are logged and audited (default "mcp": over HTTP). */
  transport?: "mcp" | "stdio";
  /** A session that lives on (stdio): its 2025 `resources/subscribe` subscriptions. */
  resources?: SessionSubscriptions;
  /** A 2025 client's call stream that can carry an upstream's mid-call questions (legacy-relay.ts). */
  relay?: RelaySink;
  /**
   * A `tools/call` the plain path (plain/answer.ts) already ran, whose answer only the SDK
   * gives (an input_required result, a capability error): the SDK's handler returns or
   * throws it instead of running the tool a second time.
   */
  ran?: { id: RequestId; outcome: PromiseSettledResult<CallToolResult | InputRequiredResult> };
  /** `discovery: search` on this endpoint: tools/list holds search_tools and call_tool (discovery.ts). */
  discovery?: Discovery;
}

/**
 * The catalog as an MCP server, transport-agnostic and era-agnostic: `/mcp` gets one SDK
 * Server per HTTP request from {@link McpCatalog.server} (the SDK's createMcpHandler decides the
 * era), `toolnexus mcp` one per stdio connection. What a Server costs per request is kept small:
 * listings are cached per catalog version and caller, and the JSON-Schema validator (the SDK
 * builds an Ajv per Server otherwise) is shared.
 */
export class McpCatalog {
  /** `tools/call` requests in flight on this replica, for notifications/cancelled. */
  readonly inFlight = new InFlightMcpCalls();
  /** Who answers: the implementation identity of every Server (and the 2026 results' `_meta`). */
  readonly info = { name: "toolnexus", version };
  // Built on the first MCP request: a service that never gets one pays nothing for it.
  private validator?: AjvJsonSchemaValidator;
  private readonly skills = new McpSkills();
  /** Resources, templates, prompts and completions of the upstream servers. */
  readonly surface: SurfaceMethods;

  constructor(
    private readonly state: ServiceState,
    private readonly views: CatalogViews,
    private readonly pipeline: CallPipeline,
    /** Scrubs secrets from what a caller is told. */
    readonly scrub: (s: string) => string,
    /** The tasks extension, where executions exist to back it. */
    readonly tasks?: McpTasks,
    /** Server-to-client requests for 2025 clients, where executions exist to carry the answers. */
    readonly relay?: LegacyRelay,
    /** A 2026 client's plain call whose upstream asks mid-call: input_required, answered by retry. */
    private readonly heldRetry?: HeldRetry,
  ) {
    this.surface = new SurfaceMethods(state, views, scrub, (e) => pipeline.recordAudit(surfaceAuditCall(e, "mcp")));
  }

  /**
   * A `notifications/cancelled` seen by the transport: aborts the call wherever it runs on
   * this replica. Over stateless HTTP it arrives in a POST of its own, to a Server that never
   * saw the request; the SDK still handles it after this (on stdio it drops the response).
   */
  cancel(session: McpSession, params: unknown): void {
    const { requestId, reason } = (params ?? {}) as { requestId?: RequestId; reason?: unknown };
    if (typeof requestId === "string" || typeof requestId === "number") {
      this.inFlight.cancel(ownerKey(session.caller), requestId, typeof reason === "string" ? reason : undefined);
    }
  }

  /** True when a call of the tool `name` may bring an upstream's log messages (an MCP server's tool). */
  relaysLogs(name: unknown): boolean {
    return typeof name === "string" && this.state.toolkit().get(name)?.source === "mcp";
  }

  /**
   * True when a `tools/call` of `tool` (or a `tools/list` or tasks method, without one) by
   * `caller` needs nothing of a per-request SDK Server: no skills extension (its McpServer
   * checks more), not an MCP server's tool (which may stream progress and log messages, and
   * brings content the SDK checks). False too when unsure (not loaded yet).
   */
  servesPlainly(caller: Caller, tool: string | undefined): boolean {
    try {
      if (hasSkills(this.state.toolkit(), caller)) return false;
      return tool === undefined || !this.relaysLogs(tool);
    } catch {
      return false;
    }
  }

  /** The cache hint of a 2026 `tools/list`: short, and private to the caller once there are credentials. */
  listCacheHint(): { ttlMs: number; cacheScope: "public" | "private" } {
    return { ttlMs: LIST_TTL_MS, cacheScope: this.state.auth.enabled ? "private" : "public" };
  }

  /**
   * A fresh SDK Server for `session`: one HTTP request, or one stdio connection. A `modern`
   * (2026-07-28) one also serves the tasks extension.
   */
  server(session: McpSession, modern = false): Server {
    const tasks = modern ? this.tasks : undefined;
    const { info } = this;
    const capabilities = {
      tools: { listChanged: true },
      // A change of the merged prompts is announced (surface/subscriptions.ts).
      prompts: { listChanged: true },
      // logging: upstream log messages are relayed (the SDK serves logging/setLevel, see callTool).
      logging: {},
      ...(tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
    };
    const offered = this.surfaceCapabilitiesNow();
    if (offered.resources) Object.assign(capabilities, { resources: offered.resources });
    if (offered.completions) Object.assign(capabilities, { completions: offered.completions });
    if (offered.extensions)
      Object.assign(capabilities, {
        extensions: { ...(capabilities as { extensions?: object }).extensions, ...(offered.extensions as object) },
      });
    const options: ServerOptions = {
      jsonSchemaValidator: (this.validator ??= new AjvJsonSchemaValidator()),
      // The list depends on the caller as soon as there are credentials: no shared cache may keep it.
      cacheHints: {
        "tools/list": this.listCacheHint(),
        "resources/list": this.listCacheHint(),
        "resources/templates/list": this.listCacheHint(),
        "prompts/list": this.listCacheHint(),
        // A read is the server's answer of the moment: not kept.
        "resources/read": { ...this.listCacheHint(), ttlMs: 0 },
      },
    };
    const { caller } = session;
    let server: Server;
    // The skills extension attaches to the SDK's McpServer (it registers a resource template):
    // one is built only for a caller who may load skills when there are some.
    if (this.hasSkillsNow(caller)) {
      const mcp = new McpServer(info, options);
      mcp.server.registerCapabilities(capabilities);
      this.skills.extension(this.state.toolkit(), (m) => session.log.warn(m)).attach(mcp);
      server = mcp.server;
    } else {
      server = new Server(info, { capabilities, ...options });
    }
    // A failure outside a call (NOT_READY while loading) is a JSON-RPC error with our code in data.
    const guard = <T>(ctx: ServerContext, fn: () => T): T => {
      try {
        return fn();
      } catch (err) {
        throw isToolnexusError(err) ? toJsonRpcError(err, session.requestId(ctx.mcpReq.id), this.scrub) : err;
      }
    };
    server.setRequestHandler("tools/list", (req, ctx) => guard(ctx, () => this.listTools(caller, req.params?.cursor, session.discovery)));
    server.setRequestHandler("tools/call", (req, ctx) => {
      const { ran } = session;
      if (ran?.id !== ctx.mcpReq.id) return this.callTool(session, req.params, ctx, tasks, server);
      if (ran.outcome.status === "rejected") throw ran.outcome.reason;
      return ran.outcome.value;
    });
    if (tasks) registerTaskMethods(server, tasks, caller, (id) => session.requestId(id), this.scrub);
    const pageSize = this.state.loaded.config.server.mcp.pageSize;
    registerSurface(server, this.surface, session, pageSize, {
      list: () => listPrompts(this.state.toolkit(), caller).prompts,
      get: (name) =>
        name === "skills" && hasSkills(this.state.toolkit(), caller) ? getPrompt(this.state.toolkit(), caller, name) : undefined,
    });
    return server;
  }

  /**
   * `tools/list`: exactly the caller's `GET /tools`, a page of `server.mcp.pageSize` at a time;
   * with `discovery`, the meta-tools and the caller's `alwaysList` tools.
   */
  listTools(caller: Caller, cursor: string | undefined, discovery?: Discovery): ListToolsResult {
    const { pageSize } = this.state.loaded.config.server.mcp;
    if (discovery) return pageOf(discoveryListing(this.views, this.scrub, caller, discovery), cursor, pageSize);
    return listToolsPage(this.views, this.scrub, caller, cursor, pageSize);
  }

  /** How `toolnexus mcp` lists the catalog now (`server.mcp.discovery`, read per request: a reload may change it). */
  mcpDiscovery(): Discovery | undefined {
    return discoveryOf(this.state.loaded.config.server.mcp);
  }

  /**
   * `tools/call` through the one pipeline. Arguments failing the schema come back as an isError
   * result; an unknown or forbidden tool and every other failure as a JSON-RPC error.
   * The plain path calls it too, with a context of its own.
   */
  async callTool(
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

  // Before the sources have loaded nothing is offered yet.
  private surfaceCapabilitiesNow(): Record<string, unknown> {
    try {
      return surfaceCapabilities(this.state.toolkit().surface());
    } catch {
      return {};
    }
  }

  // Before the sources have loaded there are no skills yet (and no error to answer here).
  private hasSkillsNow(caller: Caller): boolean {
    try {
      return hasSkills(this.state.toolkit(), caller);
    } catch {
      return false;
    }
  }
}
