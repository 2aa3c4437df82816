import { Type } from "./typebox-lite.js";
import { BUNDLE_NAME } from "../../config/schema/constants.js";
import { TOOL_NAME } from "../../core/tool-name.js";
import type { ToolSource } from "../../core/types.js";
import { ApprovedPin, PendingPin, PinStatus } from "./pin-schemas.js";

/**
 * One TypeBox schema per wire shape. Fastify validates and serializes with these and
 * @fastify/swagger turns them into openapi/openapi.json, so the three never drift apart.
 * Shapes with an $id become OpenAPI components.
 */

const FreeObject = Type.Object({}, { additionalProperties: true });

/** Every value of a tool's `source`, as `?source=` accepts them. */
export const TOOL_SOURCES = ["mcp", "skill", "builtin", "native", "http", "a2a", "custom"] as const satisfies readonly ToolSource[];

/** The provider shapes of `?format=`. */
export const TOOL_FORMATS = ["openai", "anthropic", "gemini"] as const;

/**
 * A string enum as one `{type: string, enum}` schema rather than a union of literals: client
 * generators (openapi-python-client, oapi-codegen) then make one enum type of it, not one per value.
 */
export function StringEnum<const T extends readonly string[]>(values: T, opts: { description?: string; $id?: string } = {}) {
  return Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...opts });
}

/** RFC 9457 problem details with a stable `code`. */
export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: "Stable error code, e.g. TOOL_NOT_FOUND." }),
    requestId: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ pointer: Type.String(), message: Type.String() }))),
  },
  { $id: "Problem", description: "RFC 9457 problem details (application/problem+json)." },
);

/** A tool as listed: no behaviour. */
export const ToolInfo = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    inputSchema: FreeObject,
    source: StringEnum(TOOL_SOURCES),
    /** `GET /tools/{name}`: what an MCP server declared beyond these (`_meta`, an MCP App's `ui` among it). */
    metadata: Type.Optional(FreeObject),
  },
  { $id: "ToolInfo" },
);

/** `GET /tools`. */
export const ToolList = Type.Object({ tools: Type.Array(Type.Ref(ToolInfo)) }, { $id: "ToolList" });

/** `GET /tools?format=openai|anthropic|gemini`: the provider's own declaration shape. */
export const AdapterToolList = Type.Object({ tools: Type.Array(FreeObject) }, { $id: "AdapterToolList" });

// What `?source=` accepts: known sources, comma-separated (spaces around them allowed).
const ONE_SOURCE = `\\s*(${TOOL_SOURCES.join("|")})\\s*`;
const SOURCE_LIST = `^${ONE_SOURCE}(,${ONE_SOURCE})*$`;

/** Query of `GET /tools`. */
export const ToolListQuery = Type.Object(
  {
    source: Type.Optional(Type.String({ maxLength: 256, pattern: SOURCE_LIST, description: "Comma-separated sources, e.g. mcp,http." })),
    format: Type.Optional(StringEnum(TOOL_FORMATS)),
    bundle: Type.Optional(
      Type.String({
        maxLength: 64,
        pattern: BUNDLE_NAME,
        description: "Only the tools of this bundle (config `bundles:`) the caller may use.",
      }),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description:
          "Search: the caller's tools ranked by relevance to these words (name, title, description, parameters), best first; stemmed, typo-tolerant, prefixes match.",
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, format: "int32", description: "With ?q=: at most this many results (default 20)." }),
    ),
  },
  { additionalProperties: false },
);

/** Path parameters naming a tool. */
export const ToolParams = Type.Object({ name: Type.String({ pattern: TOOL_NAME.source, maxLength: 128 }) });

/** The resolution of a suspension, sent on the resumed call. */
const Answer = Type.Object(
  {
    // An input request's id seals the upstream's requestState, which may be several kB.
    id: Type.String({ maxLength: 16_384, description: "The pending's id, as sent." }),
    ok: Type.Boolean(),
    data: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: "What the tool asked for; for an input request (kind elicitation, sampling or roots): { inputResponses }.",
        },
      ),
    ),
    reason: Type.Optional(Type.String({ maxLength: 65_536 })),
  },
  { $id: "Answer" },
);

/** Body of `POST /tools/{name}/execute`. */
export const ExecuteBody = Type.Object(
  {
    arguments: Type.Optional(FreeObject),
    timeoutMs: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2_147_483_647,
        format: "int32",
        description: "Per-call timeout; capped by server.maxTimeoutMs.",
      }),
    ),
    answer: Type.Optional(Type.Ref(Answer)),
  },
  { $id: "ExecuteBody", additionalProperties: false, examples: [{ arguments: {} }] },
);

/** What a tool returns. `isError: true` is an outcome for the model, still HTTP 200. */
export const ToolResult = Type.Object(
  {
    output: Type.String(),
    isError: Type.Boolean(),
    metadata: Type.Optional(FreeObject),
  },
  { $id: "ToolResult" },
);

/** A tool's progress report: an SSE `progress` event. */
export const Progress = Type.Object(
  {
    progress: Type.Number({ description: "Increases with every report; not necessarily an integer." }),
    total: Type.Optional(Type.Number({ description: "What `progress` reaches at the end, when known." })),
    message: Type.Optional(Type.String()),
  },
  { $id: "Progress" },
);

/** A log message an upstream MCP server sent during the call: an SSE `log` event. */
const LogMessage = Type.Object(
  {
    level: StringEnum(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]),
    logger: Type.Optional(Type.String({ maxLength: 256, description: "The name the server gave its logger (cut at 256 characters)." })),
    data: Type.Unknown({ description: "What the server logged: a string or any JSON." }),
  },
  { $id: "LogMessage" },
);

/**
 * One event of a call's `text/event-stream`, as a client parses it: `event` is the SSE event
 * name, `data` the JSON of its `data:` line. `progress` and `log`… then `result` or `error` last.
 */
const StreamEvent = Type.Union(
  [
    Type.Object({ event: Type.Literal("progress"), data: Type.Ref(Progress) }),
    Type.Object({ event: Type.Literal("log"), data: Type.Ref(LogMessage) }),
    Type.Object({ event: Type.Literal("result"), data: Type.Ref(ToolResult) }),
    Type.Object({ event: Type.Literal("error"), data: Type.Ref(Problem) }),
  ],
  { $id: "StreamEvent", description: "One server-sent event of a streamed call (event name and parsed data)." },
);

/** One source instance in `GET /status`. */
const SourceStatus = Type.Object(
  {
    source: Type.String(),
    name: Type.String(),
    state: StringEnum(["connected", "connecting", "reconnecting", "failed", "disabled"]),
    tools: Type.Integer(),
    protocolVersion: Type.Optional(
      Type.String({ description: "MCP servers: the protocol revision negotiated with the server (e.g. 2026-07-28, 2025-11-25)." }),
    ),
    sandbox: Type.Optional(
      Type.String({
        description:
          "Built-ins: what bash commands run under: bubblewrap, runAs uid=… gid=…, or none (they can read the service's secrets).",
      }),
    ),
    protocolReason: Type.Optional(
      Type.String({
        description:
          "MCP servers: why that revision (a protocolVersion pin, what the server offers, whether a 2025 session gives its mid-call requests a channel).",
      }),
    ),
    error: Type.Optional(Type.String()),
  },
  { $id: "SourceStatus" },
);

/** `GET /status`. */
export const Status = Type.Object(
  {
    ready: Type.Boolean(),
    state: StringEnum(["loading", "ready", "draining"]),
    tools: Type.Integer(),
    sources: Type.Array(Type.Ref(SourceStatus)),
    error: Type.Optional(Type.String({ description: "Why the sources could not be loaded, when they could not." })),
    reload: Type.Optional(
      Type.Object({
        at: Type.String({ description: "When the last config reload ran (ISO 8601)." }),
        ok: Type.Boolean(),
        error: Type.Optional(Type.String({ description: "Why it was refused; the previous config is still serving." })),
      }),
    ),
    pins: Type.Optional(
      Type.Ref(PinStatus, { description: "Tool-definition pinning: tools whose definition changed since it was pinned." }),
    ),
  },
  { $id: "Status" },
);

/** `GET /skills`. */
export const SkillList = Type.Object(
  {
    skills: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), location: Type.String() })),
    skipped: Type.Array(Type.Object({ reason: Type.String(), location: Type.String(), error: Type.Optional(Type.String()) })),
  },
  { $id: "SkillList" },
);

/** How a replica sees the shared Redis (`GET /readyz` with `redis:`). */
export const RedisHealth = Type.Object(
  {
    mode: Type.Union([Type.Literal("single"), Type.Literal("sentinel"), Type.Literal("cluster")]),
    state: Type.Union([Type.Literal("connected"), Type.Literal("unreachable")]),
    since: Type.Optional(Type.String({ format: "date-time", description: "When this replica lost Redis." })),
  },
  { additionalProperties: false },
);

/** `GET /healthz` and `GET /readyz`. */
export const Health = Type.Object({ status: Type.String(), redis: Type.Optional(RedisHealth) }, { $id: "Health" });

/** Every schema with an $id, registered once with Fastify (and so emitted as components). */
export const SHARED_SCHEMAS = [
  Problem,
  ToolInfo,
  ToolList,
  AdapterToolList,
  Answer,
  ExecuteBody,
  ToolResult,
  Progress,
  LogMessage,
  StreamEvent,
  SourceStatus,
  PendingPin,
  PinStatus,
  ApprovedPin,
  Status,
  SkillList,
  Health,
];

/** A route response entry for errors: the shared Problem schema as application/problem+json. */
export const ProblemResponse = {
  description: "Problem details (RFC 9457)",
  content: { "application/problem+json": { schema: Type.Ref(Problem) } },
};

/**
 * The 200 of an execute: the ToolResult as JSON, or with `Accept: text/event-stream` the
 * call's events. The stream is written by hand, so its schema only documents it.
 */
export const ExecuteOkResponse = {
  description: "The ToolResult; with `Accept: text/event-stream`, the call's events instead.",
  content: {
    "application/json": { schema: Type.Ref(ToolResult) },
    "text/event-stream": {
      schema: sseEvent(
        ["progress", "log", "result", "error"],
        "Server-sent events, each `data:` one line of JSON (parsed: StreamEvent): " +
          "`progress` (Progress) for each report, `log` (LogMessage) for each log message of an upstream MCP server, then `result` (ToolResult, isError ones too) or `error` (Problem) last. " +
          "A `: ping` comment every server.heartbeatMs. Closing the stream cancels the call.",
      ),
    },
  },
};

/**
 * The schema of one server-sent event as it travels (what an SSE parser yields, and what a
 * validating client such as Schemathesis checks each event against): its name, its `data:`
 * line of JSON and, on an execution's stream, its `id:`. OpenAPI 3.1 has no per-event slot,
 * so the media type's schema is the event's.
 */
export function sseEvent(names: readonly string[], description: string) {
  return Type.Object(
    {
      event: StringEnum(names),
      data: Type.String({ contentMediaType: "application/json", description: "One line of JSON." }),
      id: Type.Optional(Type.String({ pattern: "^[0-9]{1,9}$", description: "Resume point for Last-Event-ID." })),
    },
    { description },
  );
}
