import { type Client, type PriorDiscovery, type Tool as McpToolDef, type Transport } from "@modelcontextprotocol/client";
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
  /** Why that revision (see connectWire). */
  protocolReason: string;
  /** Streamable HTTP whose `initialize` opened a session (Mcp-Session-Id). */
  statefulHttp: boolean;
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
 * What a source remembers between its connection attempts. `modernOnly`: the stdio server
 * refused `initialize` and spoke 2026-07-28, so later attempts probe with `server/discover`.
 */
export interface NegotiationMemo {
  modernOnly?: boolean;
  /**
   * An attempt's `initialize` and its probe retry both failed: the server fails at start
   * whatever it is sent. Later attempts spawn it once each, alternating `initialize` and the
   * probe (`probeNext`), instead of twice.
   */
  failsAtStart?: boolean;
  probeNext?: boolean;
}

/** One call of {@link connect}: the server, what its transport needs, whom it reports to, its abort, its memo. */
interface Attempt {
  spec: McpServerSpec;
  deps: TransportDeps;
  hooks: ConnectionHooks;
  signal: AbortSignal;
  memo: NegotiationMemo;
}

/**
 * Connects to a server: transport start, then the revision negotiation (era-choice below),
 * each bounded by `spec.timeout`. A `remote` server that turns out not to speak streamable
 * HTTP is retried over SSE.
 */
export async function connect(
  spec: McpServerSpec,
  deps: TransportDeps,
  hooks: ConnectionHooks,
  signal: AbortSignal,
  memo: NegotiationMemo = {},
): Promise<McpConnection> {
  const wires = wiresFor(spec);
  const at: Attempt = { spec, deps, hooks, signal, memo };
  for (let i = 0; ; i++) {
    const wire = wires[i] as WireKind;
    signal.throwIfAborted();
    try {
      return await connectWire(at, wire);
    } catch (err) {
      if (i + 1 >= wires.length || !shouldFallBackToSse(err)) throw err;
      deps.logger.info({ wire: wires[i + 1] }, "server does not speak streamable HTTP; falling back to SSE");
    }
  }
}

/**
 * One wire's negotiation (docs/mcp-servers.md#protocol-revisions). A pin or the SSE wire
 * leaves no choice. A server that speaks both eras is spoken to in 2025 wherever a 2025
 * session is stateful — always over stdio, over streamable HTTP when `initialize` opens a
 * session — because server code asks its questions mid-call (elicitation, sampling, roots)
 * only on such a session; a 2026-07-28 server that asks through `input_required` is served
 * as well over 2025 by its SDK. A stateless HTTP server gets 2026-07-28.
 */
async function connectWire(at: Attempt, wire: WireKind): Promise<McpConnection> {
  if (at.spec.protocolVersion !== undefined) return because(await connectOver(at, wire), REASONS.pinned);
  if (wire === "sse") return because(await connectOver(at, wire), REASONS.sse);
  if (wire === "stdio") return connectStdio(at);
  const conn = await connectOver(at, wire);
  if (conn.client.getProtocolEra() !== "modern") return because(conn, REASONS.noModern);
  // Whether it also speaks 2025 with sessions, only an initialize tells (a discover answer may list 2026-07-28 alone).
  const legacy = await connectOver(at, wire, { kind: "legacy" }).catch(() => undefined);
  if (legacy?.statefulHttp) {
    await conn.close();
    return because(legacy, REASONS.httpStateful);
  }
  await legacy?.close();
  return because(conn, legacy ? REASONS.httpStateless : REASONS.modernOnly);
}

/** Why each revision was chosen, as `GET /status` says (`protocolReason`). */
const REASONS = {
  pinned: "pinned by the server's protocolVersion",
  sse: "the HTTP+SSE transport carries only the 2025 revisions",
  noModern: "the server does not offer 2026-07-28",
  modernOnly: "the server offers only 2026-07-28",
  httpStateful:
    "the server speaks both eras and keeps 2025 sessions over HTTP: 2025, so its mid-call requests (elicitation, sampling, roots) reach the caller",
  httpStateless: "the server speaks both eras and is stateless over HTTP: 2026-07-28",
  stdio2025:
    "stdio: initialize first, so the server's mid-call requests (elicitation, sampling, roots) reach the caller on its 2025 session",
  stdioModern: "stdio: the server refused initialize; it speaks 2026-07-28 only",
} as const;

function because(conn: McpConnection, reason: string): McpConnection {
  conn.protocolReason = reason;
  return conn;
}

/**
 * A stdio server: `initialize` first (a stdio session is stateful in either era); a server
 * that refuses it is spawned again and probed with `server/discover`, and later reconnects
 * probe at once.
 */
async function connectStdio(at: Attempt): Promise<McpConnection> {
  const { deps, signal, memo } = at;
  const probed = (conn: McpConnection) =>
    because(conn, conn.client.getProtocolEra() === "modern" ? REASONS.stdioModern : REASONS.stdio2025);
  if (memo.modernOnly) return probed(await connectOver(at, "stdio"));
  if (memo.failsAtStart) return probed(await once(at));
  try {
    return because(await connectOver(at, "stdio", { kind: "legacy" }), REASONS.stdio2025);
  } catch (err) {
    if (signal.aborted) throw err;
    deps.logger.info("server refused initialize; connecting with server/discover");
    // The retry's stderr is what explains a failure, not the first attempt's.
    deps.stderr?.clear();
    let conn: McpConnection;
    try {
      conn = await connectOver(at, "stdio");
    } catch (retryErr) {
      memo.failsAtStart = !signal.aborted;
      throw retryErr;
    }
    // Only a server that then speaks 2026-07-28 proves it refuses initialize.
    if (conn.client.getProtocolEra() === "modern") memo.modernOnly = true;
    return probed(conn);
  }
}

/** One spawn of a stdio server known to fail at start: `initialize` or the probe, by turns, until it works. */
async function once(at: Attempt): Promise<McpConnection> {
  const { memo } = at;
  const probe = memo.probeNext === true;
  memo.probeNext = !probe;
  const conn = await connectOver(at, "stdio", probe ? undefined : { kind: "legacy" });
  memo.failsAtStart = false;
  memo.probeNext = false;
  return conn;
}

async function connectOver({ spec, deps, hooks, signal }: Attempt, wire: WireKind, prior?: PriorDiscovery): Promise<McpConnection> {
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
    protocolReason: "",
    statefulHttp: false,
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
  conn.statefulHttp = wire === "streamable-http" && (transport as { sessionId?: string }).sessionId !== undefined;
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
