/**
 * The wire shapes of the service's own state: `GET /status` (each source's, pinning's) and
 * the probes `GET /healthz` and `GET /readyz` (with the shared Redis as this replica sees it).
 */
import { Type } from "../typebox-lite.js";
import { PinStatus } from "./pins.js";
import { StringEnum } from "./common.js";

/** One source instance in `GET /status`. */
export const SourceStatus = Type.Object(
  {
    source: Type.String(),
    name: Type.String(),
    state: StringEnum(["connected", "connecting", "reconnecting", "failed", "disabled"]),
    tools: Type.Integer(),
    protocolVersion: Type.Optional(
      Type.String({ description: "MCP servers: the protocol revision negotiated with the server (e.g. 2026-07-28, 2025-11-25)." }),
    ),
    sandbox: Type.Optional(
      Type.String({
        description:
          "Built-ins: what bash commands run under: bubblewrap, runAs uid=… gid=…, or none (they can read the service's secrets).",
      }),
    ),
    protocolReason: Type.Optional(
      Type.String({
        description:
          "MCP servers: why that revision (a protocolVersion pin, what the server offers, whether a 2025 session gives its mid-call requests a channel).",
      }),
    ),
    error: Type.Optional(Type.String()),
  },
  { $id: "SourceStatus" },
);

/** `GET /status`. */
export const Status = Type.Object(
  {
    ready: Type.Boolean(),
    state: StringEnum(["loading", "ready", "draining"]),
    tools: Type.Integer(),
    sources: Type.Array(Type.Ref(SourceStatus)),
    error: Type.Optional(Type.String({ description: "Why the sources could not be loaded, when they could not." })),
    reload: Type.Optional(
      Type.Object({
        at: Type.String({ description: "When the last config reload ran (ISO 8601)." }),
        ok: Type.Boolean(),
        error: Type.Optional(Type.String({ description: "Why it was refused; the previous config is still serving." })),
      }),
    ),
    pins: Type.Optional(
      Type.Ref(PinStatus, { description: "Tool-definition pinning: tools whose definition changed since it was pinned." }),
    ),
  },
  { $id: "Status" },
);

/** How a replica sees the shared Redis (`GET /readyz` with `redis:`). */
export const RedisHealth = Type.Object(
  {
    mode: Type.Union([Type.Literal("single"), Type.Literal("sentinel"), Type.Literal("cluster")]),
    state: Type.Union([Type.Literal("connected"), Type.Literal("unreachable")]),
    since: Type.Optional(Type.String({ format: "date-time", description: "When this replica lost Redis." })),
  },
  { additionalProperties: false },
);

/** `GET /healthz` and `GET /readyz`. */
export const Health = Type.Object({ status: Type.String(), redis: Type.Optional(RedisHealth) }, { $id: "Health" });
