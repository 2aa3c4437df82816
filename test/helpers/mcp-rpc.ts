import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, type TaskEnabledSession } from "@modelcontextprotocol/ext-tasks/client";
import type { JsonValue } from "@modelcontextprotocol/ext-tasks/core";

type Json = Record<string, unknown>;

const MODERN = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";

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

/** One JSON-RPC reply: its result, or its error. */
export type Reply = { kind: "result"; result: Json } | { kind: "error"; error: { code: number; message: string; data?: Json } };

/**
 * The raw 2026-07-28 request path the tasks client needs (the SDK Client's own codec refuses a
 * CreateTaskResult): one POST to `endpoint` per JSON-RPC request, with the standard headers
 * and `headers` (the caller's credentials).
 */
export function taskDispatcher(endpoint: string, headers: Record<string, string>) {
  let id = 0;
  return async (request: JsonValue, options?: { signal?: AbortSignal }): Promise<Reply> => {
    const { method, params = {} } = request as { method: string; params?: { name?: unknown; taskId?: unknown } };
    const name = params.name ?? params.taskId;
    const res = await fetch(endpoint, {
      method: "POST",
      ...(options?.signal ? { signal: options.signal } : {}),
      headers: {
        ...headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": method,
        ...(typeof name === "string" ? { "mcp-name": name } : {}),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, ...(request as Json) }),
    });
    const body = (await res.json()) as Json;
    return "error" in body ? { kind: "error", error: body.error as never } : { kind: "result", result: body.result as Json };
  };
}

/** A v2 SDK client on `endpoint` with the tasks extension's session around it (@modelcontextprotocol/ext-tasks). */
export async function taskSessionOn(
  endpoint: string,
  headers: Record<string, string>,
  clientInfo = { name: "tasks-test", version: "1.0.0" },
): Promise<TaskEnabledSession> {
  const capabilities = { extensions: { [TASKS]: {} } };
  const client = new Client(clientInfo, { versionNegotiation: { mode: { pin: MODERN } }, capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers } }));
  return createTaskSessionFromClient(client, {
    endpointId: endpoint,
    rawDispatch: taskDispatcher(endpoint, headers) as never,
    v2RequestFraming: { protocolVersion: MODERN, clientInfo, clientCapabilities: capabilities },
  });
}
