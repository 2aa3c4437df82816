import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Caller } from "../auth/index.js";
import type { CallerSurface, SurfaceListing } from "./portal-surface.js";
import type { ToolDocuments } from "./tool-documents.js";
import { PORTAL_SCRIPT } from "./portal-script.js";
import { PORTAL_SEARCH_SCRIPT } from "./portal-search.js";

/** Where the developer portal lives. */
const PORTAL_PREFIX = "/docs";
// Tells the portal's own instance which caller an injected request is for (never from outside:
// only the forwarding handler below sets it, on a request that never leaves the process).
const CALLER_HEADER = "x-toolnexus-portal-caller";
// What a portal response keeps: the rest (content-length, connection, date…) is the outer reply's.
const KEPT_HEADERS = ["content-type", "cache-control", "etag", "last-modified", "location", "content-security-policy"];

/**
 * The developer portal: Swagger UI served by the service itself (no CDN). The page and its
 * assets need no key. Its document (`/docs/json`) is the caller's per-tool document when a key
 * comes with the request, every tool when no credential is configured, else the generic routes
 * only, so no tool name reaches an anonymous visitor of a deployment with keys. The browser
 * script re-fetches it with the key on Authorize.
 *
 * Swagger UI (with @fastify/static, send, mime…) loads on the first `/docs` request, in a Fastify
 * instance of its own that the routes here forward to: the service does not pay its ~40 ms of
 * start-up for a page most deployments never open.
 */
export async function registerPortal(
  app: FastifyInstance,
  { documents, surface }: { documents: ToolDocuments; surface?: CallerSurface },
): Promise<void> {
  let portal: Promise<FastifyInstance> | undefined;
  const callers = new Map<string, Visit>();
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    const inner = await (portal ??= buildPortal(documents, callers));
    const id = randomUUID();
    // The auth hook leaves `caller` unset for a portal request that presents no key.
    const caller = (request.caller as Caller | undefined) ?? null;
    // The document shows the caller's resources and prompts too (only /docs/json needs them).
    const whose = documents.portalCaller(caller);
    const listing =
      surface && whose && request.routeOptions.url === `${PORTAL_PREFIX}/json` ? await surface(whose).catch(() => undefined) : undefined;
    callers.set(id, { caller, ...(listing ? { listing } : {}) });
    try {
      const res = await inner.inject({ method: "GET", url: request.url, headers: { [CALLER_HEADER]: id } });
      for (const name of KEPT_HEADERS) {
        const value = res.headers[name];
        if (value !== undefined) void reply.header(name, value);
      }
      return reply.code(res.statusCode).send(res.rawPayload);
    } finally {
      callers.delete(id);
    }
  };
  // In a scope of its own, so this onRoute hook declares the policy of the portal's routes only.
  await app.register(async (scope) => {
    scope.addHook("onRoute", (route) => {
      route.config = { ...route.config, access: "public", traced: true };
    });
    // `/docs/json` by name: a `?bundle=` narrows the caller of that route (governance/bundles.ts).
    for (const url of [PORTAL_PREFIX, `${PORTAL_PREFIX}/json`, `${PORTAL_PREFIX}/*`]) scope.get(url, { schema: { hide: true } }, forward);
  });
}

/** Who one portal request is for, and what it shows of their resources and prompts. */
interface Visit {
  caller: Caller | null;
  listing?: SurfaceListing;
}

/** The instance that serves Swagger UI, built once, on first use. */
async function buildPortal(documents: ToolDocuments, callers: Map<string, Visit>): Promise<FastifyInstance> {
  const [{ default: Fastify }, { default: swagger }, { default: swaggerUi }] = await Promise.all([
    import("fastify"),
    import("@fastify/swagger"),
    import("@fastify/swagger-ui"),
  ]);
  const portal = Fastify({ logger: false });
  // @fastify/swagger-ui requires it; the document itself comes from transformSpecification.
  await portal.register(swagger, { openapi: { openapi: "3.1.0", info: { title: "toolnexus", version: "" } } });
  await portal.register(swaggerUi, {
    routePrefix: PORTAL_PREFIX,
    theme: {
      title: "toolnexus API",
      js: [
        { filename: "toolnexus-portal.js", content: PORTAL_SCRIPT },
        { filename: "toolnexus-search.js", content: PORTAL_SEARCH_SCRIPT },
      ],
    },
    transformSpecificationClone: false,
    transformSpecification: (_spec: Readonly<Record<string, unknown>>, request: FastifyRequest) => {
      const visit = callers.get(String(request.headers[CALLER_HEADER]));
      return JSON.parse(documents.forPortal(visit?.caller ?? null, visit?.listing)) as Record<string, unknown>;
    },
  });
  await portal.ready();
  return portal;
}
