import type { CallToolResult } from "@modelcontextprotocol/client";
import type { ToolResult } from "../../../core/types.js";

type ContentPart = CallToolResult["content"][number];

const DEFAULT_ERROR_TEXT = "MCP tool returned an error";

/**
 * Maps an MCP `tools/call` result to a ToolResult: `isError` ⇒ an error with the
 * non-blank text parts joined by a blank line; `structuredContent` ⇒ its JSON; else the text
 * parts joined by newlines. Nothing `output` cannot say is dropped: unless the result is one
 * plain text part (or none), `metadata.content` carries every part as the server sent it
 * (image, audio, resource, resource_link, annotations, `_meta`, the text beside a structured
 * result, part boundaries); a structured result is in `metadata.structuredContent`, an error's too.
 */
export function mapCallResult(result: CallToolResult, server: string, tool: string): ToolResult {
  const content = Array.isArray(result.content) ? result.content : [];
  const texts = content.flatMap((p) => (p.type === "text" && typeof p.text === "string" ? [p.text] : []));
  const metadata: Record<string, unknown> = { server, tool };
  const structured = result.structuredContent !== undefined && result.structuredContent !== null;
  if (structured || content.length > 1 || content.some((p) => !isPlainText(p))) metadata.content = content satisfies ContentPart[];
  // Kept as is, so /mcp can give the structured result back as structured.
  if (structured) metadata.structuredContent = result.structuredContent;
  if (result.isError === true) {
    return { output: texts.filter((t) => t.trim() !== "").join("\n\n") || DEFAULT_ERROR_TEXT, isError: true, metadata };
  }
  if (structured) {
    return { output: JSON.stringify(result.structuredContent), isError: false, metadata };
  }
  return { output: texts.join("\n"), isError: false, metadata };
}

/** A text part that `output` says in full: no annotations, no `_meta`, nothing else. */
function isPlainText(part: ContentPart): boolean {
  return part.type === "text" && Object.keys(part).every((k) => k === "type" || k === "text");
}
