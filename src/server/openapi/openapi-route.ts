import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ToolDocuments } from "./tool-documents.js";

/** `GET /openapi.json`: the generic routes plus one typed operation per tool the caller may use. */
export const openapiRoute: FastifyPluginAsyncTypebox<{ documents: ToolDocuments }> = async (app, { documents }) => {
  app.get("/openapi.json", { schema: { hide: true } }, async (request, reply) =>
    reply.type("application/json; charset=utf-8").send(documents.forCaller(request.caller)),
  );
};
