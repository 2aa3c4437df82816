import { Type, type Static } from "@sinclair/typebox";
import { TOOL_NAME } from "../core/tool-name.js";

/**
 * One TypeBox schema per wire shape. Fastify validates and serializes with these and
 * @fastify/swagger turns them into openapi/openapi.json, so the three never drift apart.
 * Shapes with an $id become OpenAPI components.
 */

const FreeObject = Type.Object({}, { additionalProperties: true });

/** RFC 9457 problem details with a stable `code`. */
export const Problem = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String(),
  code: Type.String({ description: "Stable error code, e.g. TOOL_NOT_FOUND." }),
  requestId: Type.String(),
  errors: Type.Optional(Type.Array(Type.Object({ pointer: Type.String(), message: Type.String() }))),
}, { $id: "Problem", description: "RFC 9457 problem details (application/problem+json)." });

/** A tool as listed: no behaviour. */
export const ToolInfo = Type.Object({
  name: Type.String(),
  description: Type.String(),
  inputSchema: FreeObject,
  source: Type.Union(["mcp", "skill", "builtin", "native", "http", "a2a", "custom"].map((s) => Type.Literal(s))),
}, { $id: "ToolInfo" });

/** `GET /tools`. */
export const ToolList = Type.Object({ tools: Type.Array(Type.Ref(ToolInfo)) }, { $id: "ToolList" });

/** `GET /tools?format=openai|anthropic|gemini`: the provider's own declaration shape. */
export const AdapterToolList = Type.Object({ tools: Type.Array(FreeObject) }, { $id: "AdapterToolList" });

/** Query of `GET /tools`. */
export const ToolListQuery = Type.Object({
  source: Type.Optional(Type.String({ maxLength: 256, description: "Comma-separated sources, e.g. mcp,http." })),
  format: Type.Optional(Type.Union([Type.Literal("openai"), Type.Literal("anthropic"), Type.Literal("gemini")])),
});

/** Path parameters naming a tool. */
export const ToolParams = Type.Object({ name: Type.String({ pattern: TOOL_NAME.source, maxLength: 128 }) });

/** The resolution of a suspension, sent on the resumed call (DESIGN §6). */
export const Answer = Type.Object({
  id: Type.String({ maxLength: 1024 }),
  ok: Type.Boolean(),
  data: Type.Optional(FreeObject),
  reason: Type.Optional(Type.String({ maxLength: 65_536 })),
}, { $id: "Answer" });

/** Body of `POST /tools/{name}/execute`. */
export const ExecuteBody = Type.Object({
  arguments: Type.Optional(FreeObject),
  timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, format: "int32", description: "Per-call timeout; capped by server.maxTimeoutMs." })),
  answer: Type.Optional(Type.Ref(Answer)),
}, { $id: "ExecuteBody", additionalProperties: false });

/** What a tool returns. `isError: true` is an outcome for the model, still HTTP 200. */
export const ToolResult = Type.Object({
  output: Type.String(),
  isError: Type.Boolean(),
  metadata: Type.Optional(FreeObject),
}, { $id: "ToolResult" });

/** One source instance in `GET /status`. */
export const SourceStatus = Type.Object({
  source: Type.String(),
  name: Type.String(),
  state: Type.Union(["connected", "connecting", "reconnecting", "failed", "disabled"].map((s) => Type.Literal(s))),
  tools: Type.Integer(),
  error: Type.Optional(Type.String()),
}, { $id: "SourceStatus" });

/** `GET /status`. */
export const Status = Type.Object({
  ready: Type.Boolean(),
  state: Type.Union([Type.Literal("loading"), Type.Literal("ready"), Type.Literal("draining")]),
  tools: Type.Integer(),
  sources: Type.Array(Type.Ref(SourceStatus)),
  error: Type.Optional(Type.String({ description: "Why the sources could not be loaded, when they could not." })),
  reload: Type.Optional(Type.Object({
    at: Type.String({ description: "When the last config reload ran (ISO 8601)." }),
    ok: Type.Boolean(),
    error: Type.Optional(Type.String({ description: "Why it was refused; the previous config is still serving." })),
  })),
}, { $id: "Status" });

/** `GET /skills`. */
export const SkillList = Type.Object({
  skills: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), location: Type.String() })),
  skipped: Type.Array(Type.Object({ reason: Type.String(), location: Type.String(), error: Type.Optional(Type.String()) })),
}, { $id: "SkillList" });

/** `GET /healthz` and `GET /readyz`. */
export const Health = Type.Object({ status: Type.String() }, { $id: "Health" });

/** Every schema with an $id, registered once with Fastify (and so emitted as components). */
export const SHARED_SCHEMAS = [Problem, ToolInfo, ToolList, AdapterToolList, Answer, ExecuteBody, ToolResult, SourceStatus, Status, SkillList, Health];

export type ExecuteBodyT = Static<typeof ExecuteBody>;
export type ProblemT = Static<typeof Problem>;

/** A route response entry for errors: the shared Problem schema as application/problem+json. */
export const ProblemResponse = {
  description: "Problem details (RFC 9457)",
  content: { "application/problem+json": { schema: Type.Ref(Problem) } },
};
