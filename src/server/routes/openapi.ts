import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ServiceState } from "../service-state.js";
import { withToolOperations } from "../tool-openapi.js";
import { toInfo, visibleTools } from "./tools.js";

/** `GET /openapi.json`: the generic routes plus one typed operation per tool the caller may use. */
export const openapiRoute: FastifyPluginAsyncTypebox<{ state: ServiceState; scrub: (s: string) => string }> = async (app, { state, scrub }) => {
  const cache = new Map<string, string>();
  app.get("/openapi.json", { schema: { hide: true } }, async (request, reply) => {
    const tk = state.toolkit();
    const key = `${tk.version}|${request.caller.viewKey ?? request.caller.id}`;
    let body = cache.get(key);
    if (body === undefined) {
      const base = app.swagger() as Record<string, unknown>;
      body = scrub(JSON.stringify(withToolOperations(base, visibleTools(state, request.caller).map(toInfo))));
      if (cache.size > 64) cache.clear();
      cache.set(key, body);
    }
    return reply.type("application/json; charset=utf-8").send(body);
  });
};
