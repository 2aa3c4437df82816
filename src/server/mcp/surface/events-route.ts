import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ServerEvent } from "@modelcontextprotocol/server";
import { ToolnexusError } from "../../../core/errors.js";
import { openSse } from "../../calls/sse.js";
import { ProblemResponse as problem } from "../../http/schemas/common.js";
import { Type } from "../../http/typebox-lite.js";
import { MAX_SUBSCRIBED_URIS, type ResourceSubscriptions } from "./subscriptions.js";
import type { SurfaceMethods } from "./surface-methods.js";

/**
 * `GET /resources/events`: the MCP resource subscriptions for a REST caller, as Server-Sent
 * Events. `updated` for each URI named with `?uri=` (held upstream while the stream is open,
 * on the same terms as an MCP listener: checked like a read, at most MAX_SUBSCRIBED_URIS), and
 * `list_changed` when the merged resource or prompt lists change. The events come from the
 * change events every replica shares, so an update seen by another replica arrives here too.
 */

/** The `data` of an `updated` event. */
const ResourceUpdated = Type.Object(
  { uri: Type.String({ maxLength: 8192, description: "The resource that changed (as the catalog names it): read it again." }) },
  { $id: "ResourceUpdated" },
);

/** The `data` of a `list_changed` event. */
const ListChanged = Type.Object(
  { list: Type.Union([Type.Literal("resources"), Type.Literal("prompts")], { description: "Which list changed: list it again." }) },
  { $id: "ListChanged" },
);

/** One event of `GET /resources/events`, as a client parses it: `event` is the SSE event name, `data` the JSON of its `data:` line. */
const ResourceEvent = Type.Union(
  [
    Type.Object({ event: Type.Literal("updated"), data: Type.Ref(ResourceUpdated) }),
    Type.Object({ event: Type.Literal("list_changed"), data: Type.Ref(ListChanged) }),
  ],
  { $id: "ResourceEvent", description: "One server-sent event of GET /resources/events (event name and parsed data)." },
);

/** The query of `GET /resources/events`. */
const EventsQuery = Type.Object({
  uri: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 8192 }), {
      maxItems: MAX_SUBSCRIBED_URIS,
      description: `Resource URIs (as \`GET /resources\` lists them) to hear \`updated\` events of; repeat for several (at most ${MAX_SUBSCRIBED_URIS}).`,
    }),
  ),
});

// Wire shapes of this route, registered with Fastify (components of openapi/openapi.json).
const RESOURCE_EVENT_SCHEMAS = [ResourceUpdated, ListChanged, ResourceEvent];

const ResourceEventsSchema = {
  operationId: "streamResourceEvents",
  summary: "Changes of resources and prompts (Server-Sent Events)",
  description:
    "`updated` (ResourceUpdated) for each `?uri=` when its server announces a change, and `list_changed` (ListChanged) when the resources or prompts the catalog lists change. A URI that does not exist or belongs to a server the caller may not use is 404 `RESOURCE_NOT_FOUND`; more than " +
    `${MAX_SUBSCRIBED_URIS} URIs is 400 \`INVALID_REQUEST\`. The stream stays open until the client leaves.`,
  tags: ["resources"],
  querystring: EventsQuery,
  response: {
    200: {
      description: "text/event-stream",
      content: {
        "text/event-stream": { schema: Type.Ref(ResourceEvent) },
      },
    },
    "4xx": problem,
    "5xx": problem,
  },
};

/** What the route needs of the catalog as an MCP server (lazy-catalog.ts's McpConnector is one). */
export interface ResourceEventsDeps {
  /** The surface methods, loaded on the first request. */
  methods(): Promise<SurfaceMethods>;
  events: { subscribe(listener: (event: ServerEvent) => void): () => void };
  subscriptions: ResourceSubscriptions;
  heartbeatMs(): number;
}

/** Registers `GET /resources/events`. */
export const resourceEventsRoute: FastifyPluginAsyncTypebox<ResourceEventsDeps> = async (app, deps) => {
  for (const schema of RESOURCE_EVENT_SCHEMAS) app.addSchema(schema);
  // Open streams end when the service closes: an event stream never ends by itself.
  const open = new Set<() => void>();
  app.addHook("preClose", async () => {
    for (const end of [...open]) end();
  });
  app.get("/resources/events", { schema: ResourceEventsSchema }, async (request, reply) => {
    const uris = [...new Set(request.query.uri ?? [])];
    const check = (await deps.methods()).subscribable(request.caller, uris);
    if ("tooMany" in check)
      throw new ToolnexusError("INVALID_REQUEST", `Too many resource URIs: ${check.tooMany} (at most ${MAX_SUBSCRIBED_URIS} at once)`);
    if ("unknown" in check) throw new ToolnexusError("RESOURCE_NOT_FOUND", `Resource not found: ${check.unknown.slice(0, 200)}`);
    const wanted = new Set(uris);
    const release = deps.subscriptions.acquire(check.routes);
    const sse = openSse(reply, deps.heartbeatMs());
    const unlisten = deps.events.subscribe((event) => {
      if (event.kind === "resource_updated" && wanted.has(event.uri)) sse.send("updated", { uri: event.uri });
      else if (event.kind === "resources_list_changed") sse.send("list_changed", { list: "resources" });
      else if (event.kind === "prompts_list_changed") sse.send("list_changed", { list: "prompts" });
    });
    const end = () => {
      open.delete(end);
      unlisten();
      release();
      sse.close();
    };
    open.add(end);
    sse.onClientClose(end);
  });
};
