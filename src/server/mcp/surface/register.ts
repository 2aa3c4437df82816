import { ProtocolErrorCode, type Server, type ServerContext } from "@modelcontextprotocol/server";
import { inputCapabilitiesOf } from "../../../core/input/pending-input.js";
import type { Surface } from "../../../core/surface/catalog.js";
import type { SurfaceItem } from "../../../core/surface/provider.js";
import { APPS_EXTENSION } from "../../../sources/mcp/surface/upstream-surface.js";
import type { Caller } from "../../auth/index.js";
import { clientCapabilitiesOf, JsonRpcError } from "../results.js";
import type { SessionSubscriptions } from "./subscriptions.js";
import type { PromptAsk, SurfaceMethods } from "./surface-methods.js";

/** Who the Server serves (session.ts's McpSession is one). */
interface McpSession {
  caller: Caller;
  transport?: "mcp" | "stdio";
  requestId(id: ServerContext["mcpReq"]["id"]): string;
  /** A session that lives on (stdio): its 2025 `resources/subscribe` subscriptions. */
  resources?: SessionSubscriptions;
}

type PromptParams = { name: string; arguments?: Record<string, string>; _meta?: unknown };

/** `prompts/get` params: a name, and arguments that are all strings. */
const PROMPT_PARAMS = {
  "~standard": {
    version: 1 as const,
    vendor: "toolnexus",
    validate(value: unknown) {
      const v = value as SurfaceItem;
      const args = v?.arguments;
      if (typeof v?.name !== "string") return { issues: [{ message: "name must be a string", path: ["name"] }] };
      if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args)))
        return { issues: [{ message: "arguments must be an object", path: ["arguments"] }] };
      const bad = Object.entries((args ?? {}) as SurfaceItem).find(([, x]) => typeof x !== "string");
      if (bad) return { issues: [{ message: `argument "${bad[0]}" must be a string`, path: ["arguments", bad[0]] }] };
      return { value: v as PromptParams };
    },
  },
};

type Handler = (request: { method: string; params?: SurfaceItem }, ctx: ServerContext) => Promise<SurfaceItem>;

/** The gateway's own resources (the skills extension's `skill://` ones), served beside the upstreams'. */
interface LocalResources {
  list?: Handler;
  templates?: Handler;
  read?: Handler;
}

/** The capabilities the surface adds: only what some server offers (MCP Apps as the first server that offers it says). */
export function surfaceCapabilities(surface: Surface): Record<string, unknown> {
  const caps = surface.providers.map((p) => p.surfaceLists().capabilities);
  const apps = caps.find((c) => c.apps)?.apps;
  return {
    ...(caps.some((c) => c.resources)
      ? { resources: { listChanged: true, ...(caps.some((c) => c.subscribe) ? { subscribe: true } : {}) } }
      : {}),
    ...(caps.some((c) => c.completions) ? { completions: {} } : {}),
    ...(apps ? { extensions: { [APPS_EXTENSION]: apps } } : {}),
  };
}

/**
 * Serves the surface on one SDK Server: `resources/list`, `resources/templates/list`,
 * `resources/read`, `completion/complete`, and the upstreams' prompts beside the gateway's
 * own (`own`: the skills prompt). Where the skills extension already serves `skill://`
 * resources on this Server, its handlers are kept and their items come first.
 */
export function registerSurface(
  server: Server,
  methods: SurfaceMethods,
  session: McpSession,
  pageSize: number,
  own: { list(): SurfaceItem[]; get(name: string): SurfaceItem | undefined },
): void {
  const local = takeLocal(server);
  const { caller } = session;
  const rid = (ctx: ServerContext) => session.requestId(ctx.mcpReq.id);
  if (server.getCapabilities().resources) registerResources(server, methods, session, pageSize, local);
  server.setRequestHandler(
    "prompts/list",
    async (req) => page("prompts", [...own.list(), ...methods.prompts(caller)], req.params?.cursor, pageSize) as never,
  );
  // Its params checked here, so a wrong argument type is -32602 (the spec's schema check would answer -32603).
  server.setRequestHandler("prompts/get", { params: PROMPT_PARAMS }, (async (params: PromptParams, ctx: ServerContext) => {
    const mine = own.get(params.name);
    if (mine) return mine as never;
    const ask = promptAsk(server, session, ctx);
    return (await methods.getPrompt(caller, params.name, params.arguments, ctx.mcpReq.signal, rid(ctx), ask)) as never;
  }) as never);
  if (server.getCapabilities().completions)
    server.setRequestHandler(
      "completion/complete",
      async (req, ctx) => (await methods.complete(caller, req.params as SurfaceItem, ctx.mcpReq.signal, rid(ctx))) as never,
    );
}

/**
 * Whether the caller of this `prompts/get` can be asked an upstream's questions, and its
 * answer when this is a retry: a 2026 request (its envelope declares what it can answer), or a
 * 2025 client on stdio that declared a capability (the SDK asks it on its connection and calls
 * again with the state). A 2025 client over stateless HTTP cannot be: undefined.
 */
function promptAsk(server: Server, session: McpSession, ctx: ServerContext): PromptAsk | undefined {
  const { mcpReq } = ctx;
  const envelope = mcpReq.envelope as Record<string, unknown> | undefined;
  // Only what it can answer counts, and is told upstream: its other capabilities (extensions, tasks) are the gateway's business.
  const capabilities = inputCapabilitiesOf(
    envelope !== undefined ? clientCapabilitiesOf(envelope) : session.transport === "stdio" ? (server.getClientCapabilities() ?? {}) : {},
  );
  if (envelope === undefined && Object.keys(capabilities).length === 0) return undefined;
  const requestState = mcpReq.requestState();
  return {
    capabilities,
    ...(typeof requestState === "string" ? { answer: { requestState, inputResponses: mcpReq.inputResponses ?? {} } } : {}),
  };
}

function registerResources(server: Server, methods: SurfaceMethods, session: McpSession, pageSize: number, local: LocalResources): void {
  const { caller } = session;
  const rid = (ctx: ServerContext) => session.requestId(ctx.mcpReq.id);
  server.setRequestHandler("resources/list", async (req, ctx) => {
    const mine = local.list ? ((await local.list(req as never, ctx)).resources as SurfaceItem[]) : [];
    return page("resources", [...mine, ...methods.resources(caller)], req.params?.cursor, pageSize) as never;
  });
  server.setRequestHandler("resources/templates/list", async (req, ctx) => {
    const mine = local.templates ? ((await local.templates(req as never, ctx)).resourceTemplates as SurfaceItem[]) : [];
    return page("resourceTemplates", [...mine, ...methods.templates(caller)], req.params?.cursor, pageSize) as never;
  });
  server.setRequestHandler("resources/read", async (req, ctx) => {
    if (local.read && req.params.uri.startsWith("skill://")) return (await local.read(req as never, ctx)) as never;
    return (await methods.read(caller, req.params.uri, ctx.mcpReq.signal, rid(ctx))) as never;
  });
  if (server.getCapabilities().resources?.subscribe) registerSubscribe(server, methods, session);
}

/**
 * 2025 `resources/subscribe` and `resources/unsubscribe`: checked like a read (a URI the caller
 * may not see is answered as one that does not exist), then held for a session that lives on
 * (stdio). Stateless HTTP has no stream to deliver updates on: there the answer is the check's.
 */
function registerSubscribe(server: Server, methods: SurfaceMethods, session: McpSession): void {
  server.setRequestHandler("resources/subscribe", async (req) => {
    const [route] = methods.subscribeRoutes(session.caller, [req.params.uri]);
    if (route) session.resources?.add(route);
    return {} as never;
  });
  server.setRequestHandler("resources/unsubscribe", async (req) => {
    methods.subscribeRoutes(session.caller, [req.params.uri]);
    session.resources?.remove(req.params.uri);
    return {} as never;
  });
}

// The skills extension's resource handlers on this Server (its McpServer set them), taken off so ours serve both.
function takeLocal(server: Server): LocalResources {
  const s = server as unknown as { _getRequestHandler(m: string): Handler | undefined; removeRequestHandler(m: string): void };
  const take = (m: string) => {
    const h = s._getRequestHandler(m);
    if (h) s.removeRequestHandler(m);
    return h;
  };
  const list = take("resources/list");
  const templates = take("resources/templates/list");
  const read = take("resources/read");
  return { ...(list ? { list } : {}), ...(templates ? { templates } : {}), ...(read ? { read } : {}) };
}

// One opaque cursor over a merged list: an offset into it.
function page(key: string, items: SurfaceItem[], cursor: string | undefined, size: number): SurfaceItem {
  let start = 0;
  if (cursor !== undefined) {
    const m = /^s:(\d{1,9})$/.exec(Buffer.from(cursor, "base64url").toString());
    if (!m) throw new JsonRpcError(ProtocolErrorCode.InvalidParams, "Invalid cursor");
    start = Number(m[1]);
  }
  const end = start + size;
  return { [key]: items.slice(start, end), ...(end < items.length ? { nextCursor: Buffer.from(`s:${end}`).toString("base64url") } : {}) };
}
