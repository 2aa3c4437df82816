// One JSON-RPC request to a gateway MCP endpoint without a session: the surface tests' client,
// so each era's envelope (2025 plain, 2026 `_meta` and headers) is built in one place.

/** A JSON object. */
export type Json = Record<string, unknown>;

/** One JSON-RPC request to an MCP endpoint, 2025 era (stateless, no initialize needed) or 2026 (envelope and headers). */
export async function rpc(url: string, method: string, params: Json, era: "2025" | "2026", key?: string): Promise<Json> {
  const modern = era === "2026";
  const name = params.name ?? params.uri;
  const _meta = modern
    ? {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "surface-test", version: "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": {},
      }
    : undefined;
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(key ? { "x-api-key": key } : {}),
      ...(modern
        ? { "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...(typeof name === "string" ? { "mcp-name": name } : {}) }
        : { "mcp-protocol-version": "2025-11-25" }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, ...(_meta ? { _meta } : {}) } }),
  });
  const text = await res.text();
  const body = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "null");
  return JSON.parse(body) as Json;
}

/** The result of an answer. */
export const result = (r: Json) => r.result as Json;
/** The error of an answer. */
export const errorOf = (r: Json) => r.error as { code: number; message: string; data?: Json };
/** The names (or URIs) of a list answer's items under `key`. */
export const namesOf = (r: Json, key: string, field: string) => ((result(r)?.[key] as Json[] | undefined) ?? []).map((x) => x[field]);
