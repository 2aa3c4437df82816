import type { ClientOptions } from "@modelcontextprotocol/client";

/** How a connection reaches its server (create-transport.ts builds each). */
export type WireKind = "stdio" | "streamable-http" | "sse";

/** True for a revision of the 2026 era (`server/discover`, no `initialize`). */
export function isModernRevision(version: string): boolean {
  return version >= "2026-07-28";
}

/**
 * The client options that choose how a connection negotiates its revision: a pinned 2026
 * revision must be offered by `server/discover` (no fallback); a pinned 2025 revision is the
 * only one the `initialize` handshake offers or accepts; unpinned, the client probes with
 * `server/discover` and falls back to `initialize`. The old HTTP+SSE wire predates the 2026
 * revision, so it goes straight to `initialize`.
 */
export function negotiationOptions(
  pin: string | undefined,
  wire: WireKind,
): Pick<ClientOptions, "versionNegotiation" | "supportedProtocolVersions"> {
  if (pin !== undefined) {
    return isModernRevision(pin) ? { versionNegotiation: { mode: { pin } } } : { supportedProtocolVersions: [pin] };
  }
  return wire === "sse" ? {} : { versionNegotiation: { mode: "auto" } };
}
