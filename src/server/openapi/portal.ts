import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Caller } from "../auth/index.js";
import type { ToolDocuments } from "./tool-documents.js";
import { PORTAL_SCRIPT } from "./portal-script.js";

/** Where the developer portal lives. */
const PORTAL_PREFIX = "/docs";

/**
 * The developer portal: Swagger UI served by the service itself (no CDN). The page and its
 * assets need no key. Its document (`/docs/json`) is the caller's per-tool document when a key
 * comes with the request, every tool when no credential is configured, else the generic routes
 * only, so no tool name reaches an anonymous visitor of a deployment with keys. The browser
 * script re-fetches it with the key on Authorize.
 */
export async function registerPortal(app: FastifyInstance, documents: ToolDocuments): Promise<void> {
  // In a scope of its own, so this onRoute hook declares the policy of the plugin's routes only.
  await app.register(async (portal) => {
    portal.addHook("onRoute", (route) => {
      route.config = { ...route.config, access: "public", traced: true };
    });
    await registerSwaggerUi(portal, documents);
  });
}

async function registerSwaggerUi(app: FastifyInstance, documents: ToolDocuments): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: PORTAL_PREFIX,
    theme: { title: "toolnexus API", js: [{ filename: "toolnexus-portal.js", content: PORTAL_SCRIPT }] },
    transformSpecificationClone: false,
    transformSpecification: (_spec: Readonly<Record<string, unknown>>, request: FastifyRequest) => {
      // The auth hook leaves `caller` unset for a portal request that presents no key.
      return JSON.parse(documents.forPortal(request.caller as Caller | null)) as Record<string, unknown>;
    },
  });
}
