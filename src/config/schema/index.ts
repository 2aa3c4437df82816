import { Type, type Static } from "@sinclair/typebox";
import { ExecutionsSection, RedisSection } from "./executions.js";
import { AuditSection, BundlesSection, PinningSection } from "./governance.js";
import { McpServers } from "./mcp.js";
import { AuthSection, EgressSection, MetricsSection, ServerSection } from "./server.js";
import { TelemetrySection } from "./telemetry.js";
import { VaultSection } from "./vault.js";
import { A2aAgent, BuiltinsSection, HttpTool, OpenApiSource } from "./sources.js";

/** The config file. Unknown keys are errors, reported with their path. */
export const ConfigSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    server: ServerSection,
    auth: Type.Optional(AuthSection),
    metrics: Type.Optional(MetricsSection),
    mcpServers: Type.Optional(McpServers),
    servers: Type.Optional(McpServers),
    mcp: Type.Optional(McpServers),
    mcpConfig: Type.Optional(Type.String({ description: "Path to a Claude-desktop style mcp.json." })),
    skills: Type.Optional(Type.Array(Type.String())),
    builtins: Type.Optional(BuiltinsSection),
    http: Type.Optional(Type.Array(HttpTool)),
    openapi: Type.Optional(Type.Array(OpenApiSource)),
    agents: Type.Optional(Type.Record(Type.String(), A2aAgent)),
    plugins: Type.Optional(Type.Array(Type.String(), { description: "Globs of .mjs/.js modules exporting tools." })),
    egress: Type.Optional(EgressSection),
    disableTools: Type.Optional(Type.Array(Type.String())),
    redis: Type.Optional(RedisSection),
    executions: ExecutionsSection,
    telemetry: Type.Optional(TelemetrySection),
    audit: Type.Optional(AuditSection),
    pinning: PinningSection,
    bundles: Type.Optional(BundlesSection),
    vault: Type.Optional(VaultSection),
  },
  { additionalProperties: false },
);

/** A validated config with defaults applied and relative paths made absolute. */
export type ToolnexusConfig = Static<typeof ConfigSchema>;

export * from "./auth.js";
export * from "./executions.js";
export * from "./governance.js";
export * from "./mcp.js";
export * from "./server.js";
export * from "./sources.js";
export * from "./telemetry.js";
export * from "./vault.js";
