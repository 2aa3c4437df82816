import { Type, type Static } from "@sinclair/typebox";
import { JwtSection, Policy } from "./auth.js";
import { AlwaysList, Discovery } from "./governance.js";
import { stringList } from "./string-list.js";

/** A request budget: at most `max` requests per `timeWindowMs`, per API key (or client IP without auth). */
const RateLimit = Type.Object(
  {
    max: Type.Integer({ minimum: 1 }),
    timeWindowMs: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false },
);

/** `server.mcp:` — the catalog as an MCP server over streamable HTTP. */
const McpSection = Type.Object(
  {
    enabled: Type.Boolean({ default: true }),
    path: Type.String({ pattern: "^/[A-Za-z0-9/_.-]*$", default: "/mcp" }),
    pageSize: Type.Integer({
      minimum: 1,
      default: 500,
      description: "Tools per tools/list page; a larger catalog is paginated with a cursor.",
    }),
    taskAfterMs: Type.Integer({
      minimum: 0,
      maximum: 2_147_483_647,
      default: 1000,
      description:
        "A call to a tool with taskSupport optional, from a client that opted in to the tasks extension, becomes a task unless it settles within this time.",
    }),
    taskSupport: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.Literal("optional"), Type.Literal("required"), Type.Literal("forbidden")]), {
        description:
          "Tool name (or name prefix ending in *, e.g. github_* for one source) → whether /mcp runs its calls as tasks (io.modelcontextprotocol/tasks): optional, required (always a task), forbidden. Overrides what the tool itself declares; the exact name wins over a prefix, the longest prefix over a shorter one.",
      }),
    ),
    discovery: Type.Optional(Discovery),
    alwaysList: Type.Optional(AlwaysList),
  },
  { additionalProperties: false, default: {} },
);

/** `server:` — how the REST service listens and bounds calls. */
export const ServerSection = Type.Object(
  {
    host: Type.String({ default: "127.0.0.1", description: "Listen address. Use 0.0.0.0 in containers." }),
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
    // 2^31-1: Node timers overflow past it and would fire at once.
    timeoutMs: Type.Integer({ minimum: 1, maximum: 2_147_483_647, default: 60_000, description: "Default per-call timeout." }),
    maxTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: 2_147_483_647,
      default: 600_000,
      description: "Upper bound for a caller's timeoutMs.",
    }),
    maxConcurrent: Type.Integer({ minimum: 1, default: 256, description: "In-flight executes; beyond it 429." }),
    bodyLimitBytes: Type.Integer({ minimum: 1, default: 1_048_576 }),
    shutdownGraceMs: Type.Integer({ minimum: 0, default: 10_000 }),
    startupQuietMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 2_147_483_647,
        description:
          "At start and reload, readiness waits for every source until this long passes with none finishing (default 5000); the rest join the catalog when they are up.",
      }),
    ),
    heartbeatMs: Type.Integer({
      minimum: 100,
      maximum: 2_147_483_647,
      default: 15_000,
      description: "Interval of the `: ping` comment on an idle event stream.",
    }),
    // Slow clients: Node sweeps expired connections every second here, not every 30 s.
    headersTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: 2_147_483_647,
      default: 10_000,
      description: "A client must send its request headers within this time, or it is disconnected (408).",
    }),
    requestTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: 2_147_483_647,
      default: 30_000,
      description: "A client must send its whole request (headers and body) within this time; at least headersTimeoutMs.",
    }),
    publicUrl: Type.Optional(
      Type.String({
        pattern: "^[hH][tT][tT][pP][sS]?://[^/?#]+(/[^?#]*)?$",
        description:
          "The URL clients reach this gateway at (no query): the OAuth protected resource's identifier and the default JWT audience; for user-oauth, the login's callback (+ /oauth/callback) and the gateway's client metadata document (+ /oauth/client-metadata.json, https for a client id). Without it, derived from each request (with trustProxy, from what the proxy saw).",
      }),
    ),
    trustProxy: Type.Union([Type.Boolean(), Type.Array(Type.String())], {
      default: false,
      description:
        "Trust X-Forwarded-For/-Host/-Proto from these proxies (true: any; or IPs/CIDRs): Operation-Location and per-IP rate limits then use what the proxy saw.",
    }),
    keepAliveTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: 2_147_483_647,
      default: 72_000,
      description: "An idle keep-alive connection is closed after this time (longer than common load-balancer idle timeouts).",
    }),
    insecure: Type.Boolean({ default: false, description: "Allow command/file builtins without auth." }),
    allowedHosts: stringList(
      "Host header values every route accepts (a name for any port, or name:port); others get 403 FORBIDDEN_HOST. Default: bound to a loopback address, localhost, 127.0.0.1 and [::1]; bound elsewhere, any.",
    ),
    allowedOrigins: stringList(
      "Origins (scheme://host[:port]) a request that carries an Origin header may come from; others get 403 FORBIDDEN_HOST. Default: bound to a loopback address, loopback origins only; bound elsewhere, any.",
    ),
    stateSecret: Type.Optional(
      Type.String({
        minLength: 32,
        description:
          "Key of the state the gateway seals for callers (an input request's state, a caller's token kept for an execution): the same on every replica. Use ${file:…} or ${VAR}. Default: random per process (one replica only; lost at restart).",
      }),
    ),
    inputTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: 2_147_483_647,
      default: 600_000,
      description: "How long an input request (elicitation, sampling, roots, a tool's pending) waits for its answer; then INPUT_TIMEOUT.",
    }),
    rateLimit: Type.Optional(RateLimit),
    pressure: Type.Optional(
      Type.Object(
        {
          maxEventLoopDelayMs: Type.Optional(Type.Integer({ minimum: 1 })),
          maxHeapUsedBytes: Type.Optional(Type.Integer({ minimum: 1 })),
          maxRssBytes: Type.Optional(Type.Integer({ minimum: 1 })),
        },
        { additionalProperties: false, description: "Shed load with 503 UNDER_PRESSURE past these thresholds." },
      ),
    ),
    mcp: McpSection,
    logLevel: Type.Union(
      [
        Type.Literal("fatal"),
        Type.Literal("error"),
        Type.Literal("warn"),
        Type.Literal("info"),
        Type.Literal("debug"),
        Type.Literal("trace"),
        Type.Literal("silent"),
      ],
      { default: "info" },
    ),
  },
  { additionalProperties: false, default: {} },
);

/** One API key. Give `key` (usually `${ENV}`) or its hex `sha256`, never both. */
const ApiKey = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    key: Type.Optional(Type.String({ minLength: 16 })),
    sha256: Type.Optional(Type.String({ pattern: "^[a-fA-F0-9]{64}$" })),
    tools: Type.Optional(Type.Array(Type.String(), { description: "Glob patterns over tool names this key may use." })),
    resources: stringList(
      "Glob patterns over the catalog's resource URIs and URI templates this key sees (`*`: any characters). Default: the resources of the servers whose tools it may use.",
    ),
    prompts: stringList(
      "Glob patterns over the catalog's prompt names this key sees. Default: the prompts of the servers whose tools it may use.",
    ),
    rateLimit: Type.Optional(RateLimit),
    operator: Type.Optional(Type.Boolean({ description: "May read /status and /metrics." })),
    bundles: stringList("Bundles whose tools this key may use (beside `tools`); its bundle views are then limited to these."),
  },
  { additionalProperties: false },
);

/** `auth:` — when any key or `jwt` is configured, every route but /healthz and /readyz needs a caller. */
export const AuthSection = Type.Object(
  {
    apiKeys: Type.Array(ApiKey, { default: [] }),
    jwt: Type.Optional(JwtSection),
    policies: Type.Optional(Type.Array(Policy, { description: "What JWT callers may use: the union of every matching policy." })),
  },
  { additionalProperties: false },
);

/** `egress:` — the outbound request guard shared by http, openapi, a2a, webfetch and remote MCP. */
export const EgressSection = Type.Object(
  {
    allow: Type.Optional(
      Type.Array(Type.String(), {
        description: "CIDRs, IPs, host names (*.suffix for subdomains) or *; wins over deny and the default link-local/metadata block.",
      }),
    ),
    deny: Type.Optional(
      Type.Array(Type.String(), {
        description: "CIDRs, IPs, host names (*.suffix for subdomains) or *. Private ranges are allowed unless denied here.",
      }),
    ),
  },
  { additionalProperties: false },
);

/** `metrics:` — Prometheus endpoint options. */
export const MetricsSection = Type.Object(
  {
    public: Type.Boolean({ default: false }),
  },
  { additionalProperties: false },
);

export type ServerConfig = Static<typeof ServerSection>;
export type ApiKeyConfig = Static<typeof ApiKey>;
export type AuthConfig = Static<typeof AuthSection>;
export type EgressConfig = Static<typeof EgressSection>;
