import { Type, type Static } from "@sinclair/typebox";

/** `builtins:` — `true`/`false`, or an object. Off unless enabled (a network service). */
export const BuiltinsSection = Type.Union([
  Type.Boolean(),
  Type.Object({
    enabled: Type.Optional(Type.Boolean()),
    disabled: Type.Optional(Type.Boolean()),
    workspace: Type.Optional(Type.String()),
    tools: Type.Optional(Type.Record(Type.String(), Type.Boolean())),
    env: Type.Optional(Type.Array(Type.String(), { description: "Names of environment variables passed to bash." })),
    outputLimitBytes: Type.Optional(Type.Integer({ minimum: 1 })),
  }, { additionalProperties: false }),
]);

/** One declared HTTP endpoint (contract §7). */
export const HttpTool = Type.Object({
  name: Type.String({ pattern: "^[a-zA-Z0-9_-]+$" }),
  description: Type.Optional(Type.String()),
  method: Type.String({ default: "GET" }),
  url: Type.String(),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  query: Type.Optional(Type.Array(Type.String())),
  body: Type.Optional(Type.Union([Type.Literal("json"), Type.Literal("form"), Type.Literal("raw")])),
  inputSchema: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  timeout: Type.Optional(Type.Integer({ minimum: 1 })),
  resultMode: Type.Optional(Type.Union([Type.Literal("text"), Type.Literal("json"), Type.Literal("status+text")])),
  maxResponseBytes: Type.Optional(Type.Integer({ minimum: 1 })),
}, { additionalProperties: false });

/** One OpenAPI document imported as tools. */
export const OpenApiSource = Type.Object({
  spec: Type.String(),
  baseUrl: Type.Optional(Type.String()),
  prefix: Type.Optional(Type.String()),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  operations: Type.Optional(Type.Record(Type.String(), Type.Boolean())),
  timeout: Type.Optional(Type.Integer({ minimum: 1 })),
}, { additionalProperties: false });

/** One remote A2A agent (contract §7A). */
export const A2aAgent = Type.Object({
  card: Type.String(),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  timeout: Type.Optional(Type.Integer({ minimum: 1 })),
  pollEvery: Type.Optional(Type.Integer({ minimum: 1 })),
  enabled: Type.Optional(Type.Boolean()),
  disabled: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

export type BuiltinsConfig = Static<typeof BuiltinsSection>;
export type HttpToolConfig = Static<typeof HttpTool>;
export type OpenApiConfig = Static<typeof OpenApiSource>;
export type A2aAgentConfig = Static<typeof A2aAgent>;
