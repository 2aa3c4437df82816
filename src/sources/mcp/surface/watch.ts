import type { Client } from "@modelcontextprotocol/client";
import { exposedUri, type SurfacePrefix } from "../../../core/surface/names.js";
import { rewriteParts } from "../../../core/surface/rewrite.js";
import type { ToolResult } from "../../../core/types.js";

/**
 * Listens for a server's `resources/list_changed` and `prompts/list_changed` (2025-era
 * sessions send them on their own; a 2026 one's re-listing rides on the tools' resync).
 */
export function watchSurface(client: Client, onChange: () => void): void {
  client.setNotificationHandler("notifications/resources/list_changed", () => onChange());
  client.setNotificationHandler("notifications/prompts/list_changed", () => onChange());
}

/**
 * A tool result with the URIs of its embedded resources and resource links in the catalog's
 * form, so a caller can read them through the gateway.
 */
export function exposeResultUris(result: ToolResult, prefix: SurfacePrefix): ToolResult {
  const content = result.metadata?.content;
  if (prefix === false || !Array.isArray(content)) return result;
  return { ...result, metadata: { ...result.metadata, content: rewriteParts(content, (u) => exposedUri(prefix, u)) } };
}
