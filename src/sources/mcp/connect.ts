import { createRequire } from "node:module";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ToolListChangedNotificationSchema, type Tool as McpToolDef } from "@modelcontextprotocol/sdk/types.js";
import { ProgressRouter } from "./progress-router.js";
import { createTransport, shouldFallBackToSse, wiresFor, type TransportDeps, type WireKind } from "./create-transport.js";
import type { McpServerSpec } from "./server-spec.js";

const { version } = createRequire(import.meta.url)("../../../package.json") as { version: string };
const CLIENT_INFO = { name: "toolnexus", version };
// A server paging forever (or echoing its cursor) must not hang the load.
const MAX_LIST_PAGES = 1000;

/** One live session with an MCP server. */
export interface McpConnection {
  client: Client;
  wire: WireKind;
  /** Where a call opens its progress token. */
  progress: ProgressRouter;
  /** Ends the session (and kills a stdio child's process tree). Does not fire `onClose`. */
  close(): Promise<void>;
}

/** What a connection reports back to its source. */
export interface ConnectionHooks {
  /** The transport closed by itself after initialize (crash, network). */
  onClose(): void;
  /** The server sent notifications/tools/list_changed. */
  onToolsChanged(): void;
}

/**
 * Connects to a server: transport start, then `initialize`, each bounded by `spec.timeout`.
 * A `remote` server that turns out not to speak streamable HTTP is retried over SSE.
 */
export async function connect(spec: McpServerSpec, deps: TransportDeps, hooks: ConnectionHooks, signal: AbortSignal): Promise<McpConnection> {
  const wires = wiresFor(spec);
  for (let i = 0; ; i++) {
    const wire = wires[i] as WireKind;
    signal.throwIfAborted();
    try {
      return await connectOver(spec, wire, deps, hooks, signal);
    } catch (err) {
      if (i + 1 >= wires.length || !shouldFallBackToSse(err)) throw err;
      deps.logger.info({ wire: wires[i + 1] }, "server does not speak streamable HTTP; falling back to SSE");
    }
  }
}

async function connectOver(spec: McpServerSpec, wire: WireKind, deps: TransportDeps, hooks: ConnectionHooks, signal: AbortSignal): Promise<McpConnection> {
  const transport = createTransport(spec, wire, deps);
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  let live = false;
  let closing = false;
  client.onclose = () => {
    if (live && !closing) hooks.onClose();
  };
  client.onerror = (err) => deps.logger.debug({ err: deps.scrub ? deps.scrub(err.message) : err.message }, "mcp transport error");
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => hooks.onToolsChanged());
  const progress = new ProgressRouter();
  progress.install(client);
  boundStart(transport, spec.timeout);
  const conn: McpConnection = {
    client,
    wire,
    progress,
    async close() {
      closing = true;
      await client.close().catch(() => {});
    },
  };
  // Closing the source mid-connect must not wait for a slow server: end the attempt at once.
  const abort = () => void conn.close();
  signal.addEventListener("abort", abort, { once: true });
  try {
    await client.connect(transport, { timeout: spec.timeout, signal });
  } catch (err) {
    await conn.close();
    throw err;
  } finally {
    signal.removeEventListener("abort", abort);
  }
  live = true;
  return conn;
}

/** The connect phase (spawn, SSE stream open) gets its own `timeout`, like initialize and list. */
function boundStart(transport: Transport, timeout: number): void {
  const start = transport.start.bind(transport);
  transport.start = () => new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`connect timed out after ${timeout} ms`)), timeout);
    start().then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

/** Every tool of the server, following `nextCursor`; each page bounded by `timeout`. */
export async function listAllTools(client: Client, timeout: number, signal?: AbortSignal): Promise<McpToolDef[]> {
  const tools: McpToolDef[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const res = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout, ...(signal ? { signal } : {}) });
    tools.push(...res.tools);
    if (!res.nextCursor) return tools; // some servers send "" for "no more"
    if (cursors.has(res.nextCursor)) throw new Error("tools/list repeated a cursor");
    cursors.add(res.nextCursor);
    cursor = res.nextCursor;
  }
  throw new Error(`tools/list returned more than ${MAX_LIST_PAGES} pages`);
}
