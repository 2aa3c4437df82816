import { ProtocolErrorCode, type ListToolsResult, type Tool as McpTool } from "@modelcontextprotocol/server";
import type { Caller } from "../auth/index.js";
import type { CatalogViews } from "../catalog/view.js";
import { scrubDeep } from "../observability/scrub-deep.js";
import { JsonRpcError } from "./results.js";

/**
 * `tools/list`: exactly the caller's `GET /tools` (its catalog view, formed once per catalog
 * version and caller), a page of `pageSize` at a time behind an opaque cursor.
 */
export function listToolsPage(
  views: CatalogViews,
  scrub: (s: string) => string,
  caller: Caller,
  cursor: string | undefined,
  pageSize: number,
): ListToolsResult {
  return pageOf(listing(views, scrub, caller), cursor, pageSize);
}

/** A page of `pageSize` tools of `tools` from `cursor` on, with the cursor of the next page. */
export function pageOf(tools: McpTool[], cursor: string | undefined, pageSize: number): ListToolsResult {
  const start = cursor === undefined ? 0 : offsetOf(cursor);
  const end = start + pageSize;
  return { tools: tools.slice(start, end), ...(end < tools.length ? { nextCursor: cursorOf(end) } : {}) };
}

/** Every tool of the caller's view as `tools/list` lists it (formed once per view). */
export function listing(views: CatalogViews, scrub: (s: string) => string, caller: Caller): McpTool[] {
  const view = views.of(caller);
  return view.form("mcp tools/list", () => {
    const infos = view.tools.map((t): McpTool => ({
      name: t.name,
      ...(t.title === undefined ? {} : { title: t.title }),
      description: t.description,
      inputSchema: { type: "object", ...t.inputSchema },
      ...(t.outputSchema === undefined ? {} : { outputSchema: { type: "object", ...t.outputSchema } as McpTool["outputSchema"] }),
      ...(t.annotations === undefined ? {} : { annotations: t.annotations }),
      ...(t.icons === undefined ? {} : { icons: t.icons as McpTool["icons"] }),
      // An MCP App's `ui` (its resourceUri in the catalog's form) and whatever else the server declared.
      ...(t.meta === undefined ? {} : { _meta: t.meta }),
    }));
    // A description derived from a URL may hold an expanded ${VAR}: never list it (as GET /tools).
    return scrubDeep(infos, scrub);
  });
}

// Cursors are opaque to clients (MCP pagination): an offset into the caller's listing.
function cursorOf(offset: number): string {
  return Buffer.from(`o:${offset}`).toString("base64url");
}

function offsetOf(cursor: string): number {
  const m = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!m) throw new JsonRpcError(ProtocolErrorCode.InvalidParams, "Invalid cursor");
  return Number(m[1]);
}
