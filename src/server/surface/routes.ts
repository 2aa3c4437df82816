import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ToolnexusError } from "../../core/errors.js";
import type { SurfaceItem } from "../../core/surface/provider.js";
import type { CallPipeline } from "../calls/call-pipeline.js";
import type { CatalogViews } from "../catalog/view.js";
import { ProblemResponse as problem } from "../http/schemas/common.js";
import { Type } from "../http/typebox-lite.js";
import type { ServiceState } from "../service/service-state.js";
import type { Caller } from "../auth/index.js";
import type { PromptGet, RestRequest, RestSurface, SurfaceOverview } from "./rest-surface.js";
import {
  BundleQuery,
  CompleteBody,
  CompleteResult,
  PromptGetBody,
  PromptGetResult,
  PromptInputRequired,
  PromptList,
  PromptParams,
  ResourceList,
  ResourceReadQuery,
  ResourceReadResult,
  ResourceTemplateList,
  SURFACE_SCHEMAS,
  SurfaceListQuery,
} from "./schemas.js";

/**
 * The MCP surface over REST: the resources, resource templates and prompts of the catalog's
 * MCP servers, reads, prompt gets and completions, answered by the same methods as `/mcp`
 * (rest-surface.ts, loaded on the first request of these routes).
 */

/** What the surface's REST answers need of the service. */
export interface SurfaceDeps {
  state: ServiceState;
  views: CatalogViews;
  pipeline: CallPipeline;
  scrub: (s: string) => string;
}

/** What the portal shows of a caller's surface (its resources, templates and prompts, as listed). */
export type PortalSurface = (caller: Caller) => Promise<SurfaceOverview>;

/**
 * Adds the routes to `app`; resolves with what the portal shows of a caller's surface. The
 * answers (and the MCP SDK they bring) load on the first request that needs them.
 */
export async function registerSurfaceRoutes(app: FastifyInstance, deps: SurfaceDeps): Promise<PortalSurface> {
  let loading: Promise<RestSurface> | undefined;
  // A failed import is not kept: the next request tries again.
  const surface = () =>
    (loading ??= import("./rest-surface.js").then(
      ({ RestSurface }) => new RestSurface(deps.state, deps.views, deps.pipeline, deps.scrub),
      (err: unknown) => {
        loading = undefined;
        throw err;
      },
    ));
  await app.register(surfaceRoutes, { state: deps.state, surface });
  return async (caller) => (await surface()).overview(caller);
}

/** The routes whose caller a `?bundle=` narrows (governance/bundles.ts reads them). */
export const SURFACE_VIEWS = ["/resources", "/resources/templates", "/resources/read", "/prompts", "/prompts/:name/get", "/complete"];

const errors = { "4xx": problem, "5xx": problem };

/** `GET /resources`, `/resources/templates`, `/resources/read`, `/prompts`, `POST /prompts/{name}/get`, `POST /complete`. */
const surfaceRoutes: FastifyPluginAsyncTypebox<{ state: ServiceState; surface: () => Promise<RestSurface> }> = async (
  app,
  { state, surface },
) => {
  for (const schema of SURFACE_SCHEMAS) app.addSchema(schema);
  const pageSize = () => state.loaded.config.server.mcp.pageSize;
  const lists = [
    ["/resources", "listResources", "resources", "List the resources of the MCP servers this caller may use", ResourceList],
    ["/resources/templates", "listResourceTemplates", "resourceTemplates", "List their resource templates", ResourceTemplateList],
    ["/prompts", "listPrompts", "prompts", "List the prompts of the MCP servers this caller may use", PromptList],
  ] as const;
  for (const [url, operationId, kind, summary, shape] of lists) {
    app.get(
      url,
      {
        schema: {
          operationId,
          summary,
          tags: [kind === "prompts" ? "prompts" : "resources"],
          querystring: SurfaceListQuery,
          response: { 200: Type.Ref(shape), ...errors },
        },
      },
      // The shapes are the MCP ones, checked by the response schema as they go out.
      async (request) => (await surface()).list(kind, request.caller, request.query, pageSize()) as never,
    );
  }

  app.get(
    "/resources/read",
    {
      schema: {
        operationId: "readResource",
        summary: "Read a resource: JSON, or its bytes with its MIME type for a non-JSON Accept",
        tags: ["resources"],
        querystring: ResourceReadQuery,
        response: {
          200: {
            description:
              "The contents as JSON; with an Accept that does not take JSON and a single item, its bytes (a blob decoded) with the resource's MIME type.",
            content: {
              "application/json": { schema: Type.Ref(ResourceReadResult) },
              "application/octet-stream": { schema: Type.String({ format: "binary" }) },
            },
          },
          ...errors,
        },
      },
      preValidation: keepPlus,
    },
    async (request, reply) => {
      const result = await (await surface()).read(restRequest(request, reply), request.query.uri);
      const contents = result.contents as SurfaceItem[];
      if (!wantsRaw(request.headers.accept) || contents.length !== 1) return result as never;
      return sendRaw(reply, contents[0] as SurfaceItem);
    },
  );

  app.post(
    "/prompts/:name/get",
    {
      schema: {
        operationId: "getPrompt",
        summary: "Get a prompt with its arguments filled in",
        tags: ["prompts"],
        params: PromptParams,
        querystring: BundleQuery,
        body: Type.Ref(PromptGetBody),
        response: {
          200: {
            description: "The prompt's messages, or the questions its server asks first (answer them by sending the request again)",
            anyOf: [Type.Ref(PromptGetResult), Type.Ref(PromptInputRequired)],
          },
          ...errors,
        },
      },
      // No body is a prompt without arguments, as a tool call without one is.
      preValidation: (request, _reply, done) => {
        if (request.body === undefined) request.body = {};
        done();
      },
    },
    async (request, reply) =>
      (await surface()).getPrompt(restRequest(request, reply), request.params.name, request.body as PromptGet) as never,
  );

  app.post(
    "/complete",
    {
      schema: {
        operationId: "complete",
        summary: "Complete an argument of a prompt or of a resource template",
        tags: ["prompts"],
        querystring: BundleQuery,
        body: Type.Ref(CompleteBody),
        response: { 200: Type.Ref(CompleteResult), ...errors },
      },
    },
    async (request, reply) => (await surface()).complete(restRequest(request, reply), request.body as SurfaceItem) as never,
  );
};

/** The caller, the request id, and a signal that aborts when the client goes away before its answer. */
function restRequest(request: FastifyRequest, reply: FastifyReply): RestRequest {
  const controller = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.raw.writableFinished) controller.abort(new ToolnexusError("CLIENT_CLOSED", "The client closed the connection"));
  });
  return { caller: request.caller, requestId: request.id, signal: controller.signal };
}

/** Before the schema: the URI as sent, its `+` kept (the query parser reads it as a space). */
function keepPlus(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const query = request.query as { uri?: unknown };
  const raw = typeof query.uri === "string" ? rawQueryValue(request.url, "uri") : undefined;
  if (raw !== undefined) query.uri = raw;
  done();
}

/**
 * A query parameter as sent, percent-decoded but with `+` kept: a catalog URI is
 * `<prefix>+<uri>`, and a URI holds no space, so a `+` is never form-encoding's space here.
 */
function rawQueryValue(url: string, key: string): string | undefined {
  const q = url.indexOf("?");
  if (q < 0) return undefined;
  for (const pair of url.slice(q + 1).split("&")) {
    const eq = pair.indexOf("=");
    if ((eq < 0 ? pair : pair.slice(0, eq)) !== key) continue;
    try {
      return decodeURIComponent(eq < 0 ? "" : pair.slice(eq + 1));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** True for an Accept that names neither JSON nor everything: a browser's, or a client asking for the bytes. */
function wantsRaw(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === "" || accept.trim() === "*/*") return false;
  return !/application\/(json|\*)|(^|[\s,])\*\/\*\s*(,|$)/i.test(accept);
}

// A MIME type as a header may carry it: type/subtype and plain parameters.
const MIME = /^[\w.+-]+\/[\w.+-]+(\s*;\s*[\w.+-]+=("[^"\\\r\n]*"|[\w.+-]+))*$/;

/**
 * One content item as its bytes, with its MIME type. It comes from an upstream, so it is
 * served sandboxed: an app's HTML opened from here runs in an origin of its own, never the
 * gateway's (whose cookies and APIs it could otherwise reach).
 */
function sendRaw(reply: FastifyReply, item: SurfaceItem): FastifyReply {
  const blob = typeof item.blob === "string";
  const given = typeof item.mimeType === "string" && MIME.test(item.mimeType) ? item.mimeType : undefined;
  const type = given ?? (blob ? "application/octet-stream" : "text/plain; charset=utf-8");
  const body = blob ? Buffer.from(item.blob as string, "base64") : Buffer.from(typeof item.text === "string" ? item.text : "", "utf8");
  return reply.header("content-security-policy", "sandbox").header("x-content-type-options", "nosniff").type(type).send(body);
}
