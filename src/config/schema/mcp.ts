import { Type, type Static } from "@sinclair/typebox";

/**
 * One MCP server (contract §2): Claude-desktop (`command` + `args`, `env`) and opencode
 * (`command` array, `environment`) shapes. `url` ⇒ remote, `command` ⇒ local.
 */
export const McpServer = Type.Object({
  type: Type.Optional(Type.Union([Type.Literal("local"), Type.Literal("remote"), Type.Literal("stdio"), Type.Literal("http"), Type.Literal("streamable-http"), Type.Literal("sse")])),
  command: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String(), { minItems: 1 })])),
  args: Type.Optional(Type.Array(Type.String())),
  env: Type.Optional(Type.Record(Type.String(), Type.String())),
  environment: Type.Optional(Type.Record(Type.String(), Type.String())),
  cwd: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  enabled: Type.Optional(Type.Boolean()),
  disabled: Type.Optional(Type.Boolean()),
  timeout: Type.Optional(Type.Integer({ minimum: 1 })),
  tools: Type.Optional(Type.Record(Type.String(), Type.Boolean())),
}, { additionalProperties: false });

/** A map of server id → server. */
export const McpServers = Type.Record(Type.String(), McpServer);

export type McpServerConfig = Static<typeof McpServer>;
