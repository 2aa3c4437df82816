/**
 * toolnexus as a library: build a toolkit from a config and call its tools in-process,
 * or serve it over REST with `buildServer`.
 */
export type * from "./core/types.js";
export { silentLogger } from "./core/types.js";
export { sanitize } from "./core/sanitize.js";
export { defineTool, isTool, isToolDefinition, type ToolDefinition } from "./core/define-tool.js";
export { pending, authRequired, pendingOf, type PendingInput } from "./core/input/pending.js";
export { toOpenAI, toAnthropic, toGemini, type OpenAITool, type AnthropicTool, type GeminiTools } from "./core/adapters.js";
export { ERRORS, ToolnexusError, isToolnexusError, upstreamUnavailable, type ErrorCode, type FieldError } from "./core/errors.js";
export { Toolkit, NO_SKILLS_PROMPT, type ToolkitOptions } from "./core/toolkit.js";
export type { Source, SourceContext, SourceState, SourceStatus, SkillCatalog, SkillInfo, SkippedSkill } from "./core/source.js";
export { createToolkit, type CreateToolkitOptions, type ToolnexusConfigInput } from "./create-toolkit.js";
export { loadConfig, normalizeConfig, type LoadedConfig } from "./config/load.js";
export { ConfigError, type ConfigIssue } from "./config/config-error.js";
export type { ToolnexusConfig } from "./config/schema/index.js";
export { buildServer, type BuildServerOptions, type ToolnexusServer } from "./server/build-server.js";
