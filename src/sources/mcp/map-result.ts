import type { CallToolResult } from "@modelcontextprotocol/client";
import type { ToolResult } from "../../core/types.js";

type ContentPart = CallToolResult["content"][number];

const DEFAULT_ERROR_TEXT = "MCP tool returned an error";

/**
 * Maps an MCP `tools/call` result to a ToolResult (contract §2): `isError` ⇒ an error with the
 * non-blank text parts joined by a blank line; `structuredContent` ⇒ its JSON; else the text
 * parts joined by newlines. Non-text parts (image, audio, resource, resource_link) are not
 * dropped: when any is present, `metadata.content` carries every part as the server sent it
 * (and `metadata.structuredContent` the structured result).
 */
export function mapCallResult(result: CallToolResult, server: string, tool: string): ToolResult {
  const content = Array.isArray(result.content) ? result.content : [];
  const texts = content.flatMap((p) => (p.type === "text" && typeof p.text === "string" ? [p.text] : []));
  const metadata: Record<string, unknown> = { server, tool };
  if (content.some((p) => p.type !== "text")) metadata.content = content satisfies ContentPart[];
  if (result.isError === true) {
    return { output: texts.filter((t) => t.trim() !== "").join("\n\n") || DEFAULT_ERROR_TEXT, isError: true, metadata };
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    // Kept as is too, so /mcp can give the structured result back as structured.
    metadata.structuredContent = result.structuredContent;
    return { output: JSON.stringify(result.structuredContent), isError: false, metadata };
  }
  return { output: texts.join("\n"), isError: false, metadata };
}
