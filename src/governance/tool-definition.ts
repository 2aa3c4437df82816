import { canonicalDigest } from "./canonical-json.js";

/** What a tool says about itself: the part a reviewer approved, and a server could change. */
export interface ToolDefinition {
  name: string;
  description: string;
  title?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** What a prompt says about itself (pinned under `prompt:<name>`). */
export interface PromptDefinition {
  name: string;
  description?: string;
  arguments?: unknown[];
}

/** What a resource template says about itself (pinned under `resourceTemplate:<uriTemplate>`). */
export interface TemplateDefinition {
  uriTemplate: string;
  name: string;
  description?: string;
  mimeType?: string;
}

/** Any pinned definition: a tool's, a prompt's or a resource template's. */
export type Definition = ToolDefinition | PromptDefinition | TemplateDefinition;

/** A recorded definition: its digest, the definition itself (for a readable diff) and when it was pinned. */
export interface Pin {
  digest: string;
  definition: Definition;
  pinnedAt: string;
  /** Who approved it; absent when it was recorded at first sight. */
  approvedBy?: string;
}

/** The definition of a tool (any object with those fields; a source may carry title, outputSchema, annotations). */
export function definitionOf(tool: { name: string; description: string; inputSchema: Record<string, unknown> }): ToolDefinition {
  const t = tool as ToolDefinition;
  return {
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema,
    ...(t.title !== undefined ? { title: t.title } : {}),
    ...(t.outputSchema !== undefined ? { outputSchema: t.outputSchema } : {}),
    ...(t.annotations !== undefined ? { annotations: t.annotations } : {}),
  };
}

/** `sha256:<hex>` of the canonical JSON of a definition. */
export function definitionDigest(def: Definition): string {
  return `sha256:${canonicalDigest(def)}`;
}

/** The reviewed part of a listed prompt: name, description, arguments. */
export function promptDefinitionOf(p: Record<string, unknown>): PromptDefinition {
  return {
    name: String(p.name),
    ...(typeof p.description === "string" ? { description: p.description } : {}),
    ...(Array.isArray(p.arguments) ? { arguments: p.arguments as unknown[] } : {}),
  };
}

/** The reviewed part of a listed resource template: uriTemplate, name, description, mimeType. */
export function templateDefinitionOf(t: Record<string, unknown>): TemplateDefinition {
  return {
    uriTemplate: String(t.uriTemplate),
    name: String(t.name ?? ""),
    ...(typeof t.description === "string" ? { description: t.description } : {}),
    ...(typeof t.mimeType === "string" ? { mimeType: t.mimeType } : {}),
  };
}
