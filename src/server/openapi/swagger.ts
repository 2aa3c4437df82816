import swagger from "@fastify/swagger";
import type { FastifyInstance } from "fastify";
import { VERSION as version } from "../../version.js";

/** Registers @fastify/swagger (OpenAPI 3.1 from the route schemas); the portal at /docs is portal.ts. */
export async function registerSwagger(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "toolnexus",
        version,
        description: "One REST catalog for every tool an agent uses. `GET /openapi.json` adds one typed operation per tool.",
      },
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer" },
          apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
        },
      },
      security: [{ bearer: [] }, { apiKey: [] }],
      tags: [
        { name: "tools", description: "The tool catalog and its execution." },
        { name: "executions", description: "Asynchronous calls: submit, poll, stream, cancel." },
        { name: "skills", description: "Skills and the system-prompt catalog." },
        { name: "resources", description: "The resources and resource templates of the MCP servers, and reading them." },
        { name: "prompts", description: "The prompts of the MCP servers, getting them, and completing their arguments." },
        { name: "service", description: "Health, readiness, status and metrics." },
        { name: "admin", description: "Operator actions: approving tool definitions (operator callers only)." },
        { name: "credentials", description: "The caller's own upstream connections: user secrets and upstream logins." },
      ],
    },
    // Shared schemas become components named by their $id instead of def-N.
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === "string" ? json.$id : `def-${i}`) },
    transformObject: (obj) =>
      ("openapiObject" in obj ? withOptionalExecuteBodies(obj.openapiObject as OpenApi) : obj.swaggerObject) as Record<string, unknown>,
  });
}

type OpenApi = {
  paths?: Record<
    string,
    Record<string, { requestBody?: { required?: boolean; content?: Record<string, { schema?: { $ref?: string } }> } }>
  >;
};

/**
 * @fastify/swagger marks every body required, as stock Fastify needs one when a route has a
 * body schema. An execute or submit without a body is accepted here (the tool runs with `{}`,
 * so a tool that needs no arguments answers 200): its generic operations say so. The per-tool
 * operations of `/openapi.json` require the body only for tools that refuse `{}`.
 */
function withOptionalExecuteBodies(doc: OpenApi): OpenApi {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      const body = op.requestBody;
      if (body?.content?.["application/json"]?.schema?.$ref === "#/components/schemas/ExecuteBody") body.required = false;
    }
  }
  return doc;
}
