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

/** A recorded definition: its digest, the definition itself (for a readable diff) and when it was pinned. */
export interface Pin {
  digest: string;
  definition: ToolDefinition;
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
export function definitionDigest(def: ToolDefinition): string {
  return `sha256:${canonicalDigest(def)}`;
}
