import {
  SdkError,
  SdkErrorCode,
  type Client,
  type PriorDiscovery,
  type Tool as McpToolDef,
  type Transport,
} from "@modelcontextprotocol/client";
import { GatewayClient } from "./gateway-client.js";
import { HELD_INPUT_CAPABILITIES, HeldInput } from "./held-input.js";
import { LogRouter } from "./log-router.js";
import { ProgressRouter } from "./progress-router.js";
import { createTransport, shouldFallBackToSse, wiresFor, type TransportDeps } from "../transport/create-transport.js";
import { keepListening } from "./listen.js";
import { negotiationOptions } from "../config/negotiation.js";
import { RawRequests } from "./raw-requests.js";
import type { WireKind } from "../config/negotiation.js";
import { bridgeAbsentResultType } from "./result-type-bridge.js";
import type { McpServerSpec } from "../config/server-spec.js";
import { VERSION as version } from "../../../version.js";

/** Who the gateway says it is to its MCP servers. */
export const CLIENT_INFO = { name: "toolnexus", version };
// A server paging forever (or echoing its cursor) must not hang the load.
const MAX_LIST_PAGES = 1000;

/** One live session with an MCP server. */
export interface McpConnection {
  client: Client;
  wire: WireKind;
  /** The negotiated protocol revision ("2026-07-28", "2025-11-25", ...). */
  protocolVersion: string;
  /** Where a call opens its progress token. */
  progress: ProgressRouter;
  /** Where a call opens its route for the server's mid-call questions to the caller. */
  held: HeldInput;
  /** Where a call receives the server's log messages. */
  logs: LogRouter;
  /** Requests the SDK client cannot carry (the 2026 tasks extension), on the same transport. */
  raw: RawRequests;
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
 * What a source remembers between its connection attempts. `legacyOnly`: the stdio server
 * exited on the `server/discover` probe (servers on some SDKs end on any request before
 * `initialize`), so later attempts go straight to `initialize`.
 */
export interface NegotiationMemo {
  legacyOnly?: boolean;
  /**
   * An attempt's probe and its `initialize` retry both failed: the server fails at start
   * whatever it is sent. Later attempts spawn it once each, alternating the probe and
   * `initialize` (`legacyNext`), instead of twice.
   */
  failsAtStart?: boolean;
  legacyNext?: boolean;
}

/**
 * Connects to a server: transport start, then the revision negotiation (`server/discover`,
 * else `initialize`), each bounded by `spec.timeout`. A `remote` server that turns out not to
 * speak streamable HTTP is retried over SSE.
 */
export async function connect(
  spec: McpServerSpec,
  deps: TransportDeps,
  hooks: ConnectionHooks,
  signal: AbortSignal,
  memo: NegotiationMemo = {},
): Promise<McpConnection> {
  const wires = wiresFor(spec);
  for (let i = 0; ; i++) {
    const wire = wires[i] as WireKind;
    signal.throwIfAborted();
    const probing = wire === "stdio" && spec.protocolVersion === undefined && !memo.legacyOnly;
    if (probing && memo.failsAtStart) return once(spec, deps, hooks, signal, memo);
    try {
      return await connectOver(spec, wire, deps, hooks, signal, memo.legacyOnly ? { kind: "legacy" } : undefined);
    } catch (err) {
      if (probing && isEraFailure(err)) {
        deps.logger.info("server closed the connection on server/discover; connecting with initialize");
        // The retry's stderr is what explains a failure, not the probe's.
        deps.stderr?.clear();
        let conn: McpConnection;
        try {
          conn = await connectOver(spec, wire, deps, hooks, signal, { kind: "legacy" });
        } catch (retryErr) {
          memo.failsAtStart = !signal.aborted;
          throw retryErr;
        }
        // Only a server that then works proves it ends on the probe (one that crashes at start ends either way).
        memo.legacyOnly = true;
        return conn;
      }
      if (i + 1 >= wires.length || !shouldFallBackToSse(err)) throw err;
      deps.logger.info({ wire: wires[i + 1] }, "server does not speak streamable HTTP; falling back to SSE");
    }
  }
}

/** One spawn of a stdio server known to fail at start: the probe or `initialize`, by turns, until it works. */
async function once(
  spec: McpServerSpec,
  deps: TransportDeps,
  hooks: ConnectionHooks,
  signal: AbortSignal,
  memo: NegotiationMemo,
): Promise<McpConnection> {
  const legacy = memo.legacyNext === true;
  memo.legacyNext = !legacy;
  const conn = await connectOver(spec, "stdio", deps, hooks, signal, legacy ? { kind: "legacy" } : undefined);
  memo.failsAtStart = false;
  memo.legacyNext = false;
  return conn;
}

function isEraFailure(err: unknown): boolean {
  return err instanceof SdkError && err.code === SdkErrorCode.EraNegotiationFailed;
}

async function connectOver(
  spec: McpServerSpec,
  wire: WireKind,
  deps: TransportDeps,
  hooks: ConnectionHooks,
  signal: AbortSignal,
  prior?: PriorDiscovery,
): Promise<McpConnection> {
  const transport = createTransport(spec, wire, deps);
  const client = new GatewayClient(CLIENT_INFO, {
    // A held call's caller answers (executions, a promoted REST or SSE call): see held-input.ts.
    capabilities: HELD_INPUT_CAPABILITIES,
    listMaxPages: MAX_LIST_PAGES,
    ...negotiationOptions(spec.protocolVersion, wire),
  });
  let live = false;
  let closing = false;
  const raw = new RawRequests(transport);
  const listening = new AbortController();
  client.onclose = () => {
    raw.closeAll();
    if (live && !closing) hooks.onClose();
  };
  client.onerror = (err) => deps.logger.debug({ err: deps.scrub ? deps.scrub(err.message) : err.message }, "mcp transport error");
  client.setNotificationHandler("notifications/tools/list_changed", () => hooks.onToolsChanged());
  const progress = new ProgressRouter();
  progress.install(client);
  const held = new HeldInput();
  held.install(client);
  const logs = new LogRouter();
  logs.install(client);
  bridgeAbsentResultType(transport, client);
  boundStart(transport, spec.timeout);
  const conn: McpConnection = {
    client,
    wire,
    protocolVersion: "",
    progress,
    held,
    logs,
    raw,
    async close() {
      closing = true;
      listening.abort();
      await client.close().catch(() => {});
    },
  };
  // Closing the source mid-connect must not wait for a slow server: end the attempt at once.
  const abort = () => void conn.close();
  signal.addEventListener("abort", abort, { once: true });
  try {
    await client.connect(transport, { timeout: spec.timeout, signal, ...(prior ? { prior } : {}) });
  } catch (err) {
    await conn.close();
    throw err;
  } finally {
    signal.removeEventListener("abort", abort);
  }
  conn.protocolVersion = client.getNegotiatedProtocolVersion() ?? "";
  raw.install();
  live = true;
  // A 2026-era server announces catalog changes only on a stream the client opens.
  if (client.getProtocolEra() === "modern" && client.getServerCapabilities()?.tools?.listChanged) {
    void keepListening(
      client,
      spec.timeout,
      {
        onResync: () => hooks.onToolsChanged(),
        onLost: (why) => {
          deps.logger.debug({ reason: deps.scrub ? deps.scrub(why) : why }, "mcp subscription lost");
          if (!closing) hooks.onClose();
        },
      },
      deps.logger,
      listening.signal,
    );
  }
  return conn;
}

/** The connect phase (spawn, SSE stream open) gets its own `timeout`, like initialize and list. */
function boundStart(transport: Transport, timeout: number): void {
  const start = transport.start.bind(transport);
  transport.start = () =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`connect timed out after ${timeout} ms`)), timeout);
      start()
        .then(resolve, reject)
        .finally(() => clearTimeout(timer));
    });
}

/**
 * Every tool of the server: the SDK walks `nextCursor` (at most MAX_LIST_PAGES pages) and
 * keeps the list it uses to check results against each tool's `outputSchema`. Always fetched
 * afresh (a 2026 server's `ttlMs` hint is for clients that poll; we list only when told to).
 */
export async function listAllTools(client: Client, timeout: number, signal?: AbortSignal): Promise<McpToolDef[]> {
  const res = await client.listTools(undefined, { timeout, cacheMode: "refresh", ...(signal ? { signal } : {}) });
  return res.tools;
}
