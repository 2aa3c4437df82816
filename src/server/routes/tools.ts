import { createHash } from "node:crypto";
import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { toAnthropic, toGemini, toOpenAI } from "../../core/adapters.js";
import { ToolnexusError } from "../../core/errors.js";
import type { Tool, ToolInfo as ToolInfoT } from "../../core/types.js";
import type { Caller } from "../auth/index.js";
import { AdapterToolList, ProblemResponse as problem, ToolInfo, ToolList, ToolListQuery, ToolParams } from "../schemas.js";
import type { ServiceState } from "../service-state.js";
import { toolQueryError } from "../tool-query.js";

const FORMATS = { openai: toOpenAI, anthropic: toAnthropic, gemini: toGemini } as const;

/** The listing shape of a tool. */
export function toInfo(t: Tool): ToolInfoT {
  return { name: t.name, description: t.description, inputSchema: t.inputSchema, source: t.source };
}

/** The tools a caller may see, in catalog order. */
export function visibleTools(state: ServiceState, caller: Caller): Tool[] {
  return state.toolkit().tools().filter((t) => caller.allows(t.name) && !state.hold.withheld(t.name));
}

/** The tool a caller asked for: 404 when it does not exist or the caller may not see it. */
export function visibleTool(state: ServiceState, caller: Caller, name: string): Tool {
  const tool = state.toolkit().get(name);
  if (!tool || !caller.allows(name)) throw new ToolnexusError("TOOL_NOT_FOUND", `No tool named "${name}"`);
  if (state.hold.withheld(name)) throw new ToolnexusError("TOOL_DEFINITION_CHANGED", `The definition of "${name}" is not the approved one; it is withheld until an operator approves it`);
  return tool;
}

/** `GET /tools` and `GET /tools/{name}`. */
export const toolRoutes: FastifyPluginAsyncTypebox<{ state: ServiceState; scrub: (s: string) => string }> = async (app, { state, scrub }) => {
  // Serialized listings by (catalog version, caller, query): GET /tools is hot and rarely changes.
  const cache = new Map<string, { body: string; etag: string }>();

  app.get("/tools", {
    schema: {
      operationId: "listTools",
      summary: "List the tools this caller may use",
      tags: ["tools"],
      querystring: ToolListQuery,
      response: { 200: { description: "The catalog (or an adapter's shape with ?format)", content: { "application/json": { schema: Type.Union([Type.Ref(ToolList), Type.Ref(AdapterToolList)]) } } }, 304: { description: "Not modified", type: "null" }, "4xx": problem, "5xx": problem },
    },
    // Before schema validation: one clear 400 naming the allowed values.
    preValidation: (request, _reply, done) => done(toolQueryError(request.query as Record<string, unknown>)),
  }, async (request, reply) => {
    const tk = state.toolkit();
    const { source, format } = request.query;
    const key = `${state.viewVersion(tk)}|${request.caller.viewKey ?? request.caller.id}|${source ?? ""}|${format ?? ""}`;
    let entry = cache.get(key);
    if (!entry) {
      const sources = source ? new Set(source.split(",").map((s) => s.trim())) : undefined;
      const infos = visibleTools(state, request.caller).filter((t) => !sources || sources.has(t.source)).map(toInfo);
      // A description derived from a URL may hold an expanded ${VAR}: never list it.
      const body = scrub(JSON.stringify({ tools: format ? FORMATS[format](infos) : infos }));
      entry = { body, etag: `W/"${createHash("sha1").update(body).digest("base64url")}"` };
      if (cache.size > 256) cache.clear();
      cache.set(key, entry);
    }
    reply.header("etag", entry.etag).header("cache-control", "no-cache");
    if (request.headers["if-none-match"] === entry.etag) return reply.code(304).send();
    return reply.type("application/json; charset=utf-8").send(entry.body);
  });

  app.get("/tools/:name", {
    schema: {
      operationId: "getTool",
      summary: "Describe one tool",
      tags: ["tools"],
      params: ToolParams,
      response: { 200: Type.Ref(ToolInfo), "4xx": problem, "5xx": problem },
    },
  }, async (request) => JSON.parse(scrub(JSON.stringify(toInfo(visibleTool(state, request.caller, request.params.name))))) as ToolInfoT);
};

