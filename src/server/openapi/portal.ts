import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Caller } from "../auth/index.js";
import type { ToolDocuments } from "./tool-documents.js";
import { PORTAL_SCRIPT } from "./portal-script.js";

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
export async function registerPortal(app: FastifyInstance, { documents }: { documents: ToolDocuments }): Promise<void> {
  let portal: Promise<FastifyInstance> | undefined;
  const callers = new Map<string, Caller | null>();
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    const inner = await (portal ??= buildPortal(documents, callers));
    const id = randomUUID();
    // The auth hook leaves `caller` unset for a portal request that presents no key.
    callers.set(id, (request.caller as Caller | undefined) ?? null);
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

/** The instance that serves Swagger UI, built once, on first use. */
async function buildPortal(documents: ToolDocuments, callers: Map<string, Caller | null>): Promise<FastifyInstance> {
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
    theme: { title: "toolnexus API", js: [{ filename: "toolnexus-portal.js", content: PORTAL_SCRIPT }] },
    transformSpecificationClone: false,
    transformSpecification: (_spec: Readonly<Record<string, unknown>>, request: FastifyRequest) => {
      const caller = callers.get(String(request.headers[CALLER_HEADER])) ?? null;
      return JSON.parse(documents.forPortal(caller)) as Record<string, unknown>;
    },
  });
  await portal.ready();
  return portal;
}
