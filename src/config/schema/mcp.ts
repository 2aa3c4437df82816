import { Type, type Static } from "@sinclair/typebox";
import { UpstreamAuthSection } from "./upstream-auth.js";

/**
 * One MCP server: Claude-desktop (`command` + `args`, `env`) and opencode
 * (`command` array, `environment`) shapes. `url` ⇒ remote, `command` ⇒ local.
 * Normalized into a connection spec by src/sources/mcp/config/server-spec.ts.
 */
const McpServer = Type.Object(
  {
    type: Type.Optional(
      Type.Union(
        [
          Type.Literal("local"),
          Type.Literal("remote"),
          Type.Literal("stdio"),
          Type.Literal("http"),
          Type.Literal("streamable-http"),
          Type.Literal("sse"),
        ],
        {
          description:
            "Inferred when omitted: url ⇒ remote (streamable HTTP, falling back to SSE), command ⇒ local (stdio). http/streamable-http and sse pin one remote transport.",
        },
      ),
    ),
    command: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.String(), { minItems: 1 })], {
        description: "The executable, or the whole argv as an array. A string is not split on spaces.",
      }),
    ),
    args: Type.Optional(Type.Array(Type.String(), { description: "Appended after command." })),
    env: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: "The child's variables, besides PATH, HOME, LANG and TMPDIR taken from the service.",
      }),
    ),
    inheritEnv: Type.Optional(
      Type.Boolean({
        description:
          "Local servers: true passes the service's whole environment (its secrets included) under `env`. Default false: only PATH, HOME, LANG, TMPDIR.",
      }),
    ),
    environment: Type.Optional(Type.Record(Type.String(), Type.String(), { description: "Alias of env (opencode)." })),
    runAs: Type.Optional(
      Type.Object(
        {
          uid: Type.Integer({ minimum: 0, description: "User id the server runs as (the service must run as root to switch)." }),
          gid: Type.Integer({ minimum: 0, description: "Group id the server runs as; supplementary groups are dropped." }),
        },
        {
          additionalProperties: false,
          description:
            "Local servers: run as this unprivileged user, so the server cannot read the service's /proc/<pid>/environ or its files.",
        },
      ),
    ),
    cwd: Type.Optional(Type.String({ description: "Working directory of a local server; default the config's directory." })),
    url: Type.Optional(Type.String({ description: "Endpoint of a remote server." })),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: "Sent on every request to a remote server. ${VAR} expands; values are never logged.",
      }),
    ),
    forwardAuth: Type.Optional(
      Type.Boolean({
        description:
          "Remote servers only: a JWT caller's own bearer token goes on its tools/call requests as Authorization (never an API key). Alias of upstreamAuth: { mode: passthrough } (warned at load).",
      }),
    ),
    upstreamAuth: Type.Optional(UpstreamAuthSection),
    enabled: Type.Optional(Type.Boolean()),
    disabled: Type.Optional(Type.Boolean({ description: "disabled:true wins over enabled." })),
    timeout: Type.Optional(
      Type.Integer({ minimum: 1, description: "Bound of each load phase (connect, initialize, list) in ms; default 30000." }),
    ),
    prefix: Type.Optional(
      Type.Union([Type.String({ minLength: 1 }), Type.Literal(false)], {
        description:
          "Tool names are prefix_tool (sanitized). Default: the server's name. false: the server's own tool names; a name an earlier tool took is refused with a warning.",
      }),
    ),
    protocolVersion: Type.Optional(
      Type.Union(
        ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"].map((v) => Type.Literal(v)),
        {
          description:
            "Pins one MCP revision: 2026-07-28 must be offered by the server's server/discover; a 2025 revision is the only one the initialize handshake offers. Default: 2026-07-28 when the server supports it, else the 2025 initialize.",
        },
      ),
    ),
    tools: Type.Optional(
      Type.Record(Type.String(), Type.Boolean(), {
        description: "Keyed by the server's own tool names: any true ⇒ allowlist; only false ⇒ drop-list.",
      }),
    ),
  },
  { additionalProperties: false },
);

/** A map of server id → server. */
export const McpServers = Type.Record(Type.String(), McpServer);

export type McpServerConfig = Static<typeof McpServer>;
