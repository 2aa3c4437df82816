type Json = Record<string, unknown>;

/**
 * One 2026-07-28 JSON-RPC request to `${url}/mcp` as a client that declares the tasks extension
 * sends it (the standard headers, the `_meta` envelope, `headers` beside them); the whole reply.
 */
export async function tasksRpcReply(
  url: string,
  method: string,
  params: Json,
  { client = "tasks-test", headers = {} }: { client?: string; headers?: Record<string, string> } = {},
): Promise<{ result?: Json; error?: Json }> {
  const name = params.name ?? params.taskId;
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: client, version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      ...headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta } }),
  });
  return (await res.json()) as { result?: Json; error?: Json };
}

/** {@link tasksRpcReply}'s `result`. */
export async function tasksRpc(url: string, method: string, params: Json, client = "tasks-test"): Promise<Json> {
  return (await tasksRpcReply(url, method, params, { client })).result as Json;
}

/** The `event:`/`data:` pairs of a finished SSE body. */
export function sseEvents(text: string): { event: string; data: Json }[] {
  return text
    .split("\n\n")
    .map((block) => ({
      event: /^event: (.*)$/m.exec(block)?.[1] ?? "",
      data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null") as Json,
    }))
    .filter((e) => e.event !== "");
}
