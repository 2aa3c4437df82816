import type { ToolInfo } from "./types.js";

/** OpenAI function-calling tool declaration. */
export interface OpenAITool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}
/** Anthropic tool declaration. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}
/** Gemini: one element wrapping every declaration. */
export type GeminiTools = [{ functionDeclarations: { name: string; description: string; parameters: Record<string, unknown> }[] }];

/** Tools as OpenAI `tools[]`. */
export function toOpenAI(tools: readonly ToolInfo[]): OpenAITool[] {
  return tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  }));
}

/** Tools as Anthropic `tools[]`. */
export function toAnthropic(tools: readonly ToolInfo[]): AnthropicTool[] {
  return tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
}

/** Tools as Gemini `tools`: a single element holding every declaration. */
export function toGemini(tools: readonly ToolInfo[]): GeminiTools {
  return [
    {
      functionDeclarations: tools.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema })),
    },
  ];
}
