import {
  McpServer,
  Server,
  type ListToolsResult,
  type RequestId,
  type ServerContext,
  type ServerOptions,
} from "@modelcontextprotocol/server";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import { isToolnexusError } from "../../core/errors.js";
import { ownerKey, type Caller } from "../auth/index.js";
import type { CallPipeline } from "../calls/call-pipeline.js";
import type { CatalogViews } from "../catalog/view.js";
import type { ServiceState } from "../service/service-state.js";
import { InFlightMcpCalls } from "./in-flight.js";
import { McpSkills } from "./skills/extension.js";
import { getPrompt, hasSkills, listPrompts } from "./skills/prompt.js";
import { listToolsPage, pageOf } from "./tools-listing.js";
import { discoveryOf, type Discovery } from "./discovery.js";
import { discoveryListing } from "./discovery-tools.js";
import { toJsonRpcError } from "./results.js";
import { TASKS_EXTENSION } from "../../sources/mcp/call/task-v2.js";
import { registerTaskMethods } from "./tasks/methods.js";
import type { McpTasks } from "./tasks/tasks.js";
import type { LegacyRelay } from "./input/legacy-relay.js";
import type { HeldRetry } from "./input/held-retry.js";
import { VERSION as version } from "../../version.js";
import { registerSurface, surfaceCapabilities } from "./surface/register.js";
import { SurfaceMethods, surfaceAuditCall } from "./surface/surface-methods.js";
import type { McpSession } from "./session.js";
import { McpToolCalls } from "./tool-call.js";

// How long a 2026-era client may keep a tools/list. Short, because a reload changes it; a client
// that holds a subscriptions/listen stream hears of the change at once anyway.
const LIST_TTL_MS = 60_000;

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
  /**
   * `tools/call` through the one pipeline (tool-call.ts), for every Server this catalog builds.
   * Arguments failing the schema come back as an isError result; an unknown or forbidden tool
   * and every other failure as a JSON-RPC error. The plain path calls it too, with a context
   * of its own.
   */
  readonly callTool: McpToolCalls["call"];

  constructor(
    private readonly state: ServiceState,
    private readonly views: CatalogViews,
    pipeline: CallPipeline,
    /** Scrubs secrets from what a caller is told. */
    readonly scrub: (s: string) => string,
    /** The tasks extension, where executions exist to back it. */
    readonly tasks?: McpTasks,
    /** Server-to-client requests for 2025 clients, where executions exist to carry the answers. */
    readonly relay?: LegacyRelay,
    /** A 2026 client's plain call whose upstream asks mid-call: input_required, answered by retry. */
    heldRetry?: HeldRetry,
  ) {
    this.surface = new SurfaceMethods(state, views, scrub, (e) => pipeline.recordAudit(surfaceAuditCall(e, "mcp")));
    const toolCalls = new McpToolCalls(state, views, pipeline, scrub, this.inFlight, (name) => this.relaysLogs(name), relay, heldRetry);
    this.callTool = toolCalls.call.bind(toolCalls);
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
