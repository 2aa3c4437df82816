import swagger from "@fastify/swagger";
import type { FastifyInstance } from "fastify";
import { createRequire } from "node:module";

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

/** Registers @fastify/swagger (OpenAPI 3.1 from the route schemas); the portal at /docs is src/server/portal/. */
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
        { name: "service", description: "Health, readiness, status and metrics." },
        { name: "admin", description: "Operator actions: approving tool definitions (operator callers only)." },
      ],
    },
    // Shared schemas become components named by their $id instead of def-N.
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === "string" ? json.$id : `def-${i}`) },
  });
}
