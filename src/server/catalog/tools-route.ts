import { createHash } from "node:crypto";
import { Type } from "../http/typebox-lite.js";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { toAnthropic, toGemini, toOpenAI } from "../../core/adapters.js";
import { ProblemResponse as problem } from "../http/schemas/common.js";
import { AdapterToolList, ToolInfo, ToolList, ToolListQuery, ToolParams } from "../http/schemas/catalog.js";
import { scrubDeep } from "../observability/scrub-deep.js";
import type { ServiceState } from "../service/service-state.js";
import { DEFAULT_SEARCH_LIMIT } from "./search.js";
import { toolQueryError } from "./tool-query.js";
import { toInfo, visibleTool, type CatalogViews } from "./view.js";

const FORMATS = { openai: toOpenAI, anthropic: toAnthropic, gemini: toGemini } as const;

/** Options of {@link toolRoutes}. */
export interface ToolRoutesOptions {
  state: ServiceState;
  views: CatalogViews;
  scrub: (s: string) => string;
}

/** `GET /tools` and `GET /tools/{name}`. */
export const toolRoutes: FastifyPluginAsyncTypebox<ToolRoutesOptions> = async (app, { state, views, scrub }) => {
  app.get(
    "/tools",
    {
      schema: {
        operationId: "listTools",
        summary: "List the tools this caller may use, or search them (?q=)",
        tags: ["tools"],
        querystring: ToolListQuery,
        response: {
          200: {
            description: "The catalog (or an adapter's shape with ?format)",
            content: { "application/json": { schema: Type.Union([Type.Ref(ToolList), Type.Ref(AdapterToolList)]) } },
          },
          304: { description: "Not modified", type: "null" },
          "4xx": problem,
          "5xx": problem,
        },
      },
      // Before schema validation: one clear 400 naming the allowed values.
      preValidation: (request, _reply, done) => done(toolQueryError(request.query as Record<string, unknown>)),
    },
    async (request, reply) => {
      const { source, format, q, limit } = request.query;
      const view = views.of(request.caller);
      if (q !== undefined) {
        // A search: the catalog's index (built once per catalog), hits filtered to the view, serialized per request.
        const sources = source ? new Set(source.split(",").map((s) => s.trim())) : undefined;
        const hits = view.search().search(q, limit ?? DEFAULT_SEARCH_LIMIT, sources && ((t) => sources.has(t.source)));
        const infos = hits.map(toInfo);
        reply.header("cache-control", "no-cache");
        return reply
          .type("application/json; charset=utf-8")
          .send(scrub(JSON.stringify({ tools: format ? FORMATS[format](infos) : infos })));
      }
      // The serialized listing of this query, built once per view: GET /tools is hot and rarely changes.
      const entry = view.form(`GET /tools|${source ?? ""}|${format ?? ""}`, () => {
        const sources = source ? new Set(source.split(",").map((s) => s.trim())) : undefined;
        const infos = view.tools.filter((t) => !sources || sources.has(t.source)).map(toInfo);
        // A description derived from a URL may hold an expanded ${VAR}: never list it.
        const body = scrub(JSON.stringify({ tools: format ? FORMATS[format](infos) : infos }));
        return { body, etag: `W/"${createHash("sha1").update(body).digest("base64url")}"` };
      });
      reply.header("etag", entry.etag).header("cache-control", "no-cache");
      if (request.headers["if-none-match"] === entry.etag) return reply.code(304).send();
      return reply.type("application/json; charset=utf-8").send(entry.body);
    },
  );

  app.get(
    "/tools/:name",
    {
      schema: {
        operationId: "getTool",
        summary: "Describe one tool",
        tags: ["tools"],
        params: ToolParams,
        response: { 200: Type.Ref(ToolInfo), "4xx": problem, "5xx": problem },
      },
    },
    async (request) => {
      const tool = visibleTool(state, request.caller, request.params.name);
      // The tool's MCP `_meta` (an MCP App's `ui` among it) as REST metadata.
      return scrubDeep({ ...toInfo(tool), ...(tool.meta === undefined ? {} : { metadata: { _meta: tool.meta } }) }, scrub);
    },
  );
};
