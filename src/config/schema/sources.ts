import { Type, type Static } from "@sinclair/typebox";
import { ForwardAuthField, UpstreamAuthSection } from "./upstream-auth.js";

/** `builtins.sandbox` mode: auto, bubblewrap (required) or off. */
const SandboxMode = Type.Union([Type.Literal("auto"), Type.Literal("bubblewrap"), Type.Literal("off")]);

/**
 * `builtins:` — the built-in shell/file tools. Off unless enabled: this is a
 * network service. `true` or `{ enabled: true }` turns them on; `disabled: true` always wins.
 */
export const BuiltinsSection = Type.Union([
  Type.Boolean(),
  Type.Object(
    {
      enabled: Type.Optional(Type.Boolean({ description: "Must be true to turn the built-ins on." })),
      disabled: Type.Optional(Type.Boolean({ description: "true turns the built-ins off, whatever else is set." })),
      workspace: Type.Optional(
        Type.String({
          description:
            "Directory every path argument and bash workdir is confined to. Default: ./workspace beside the config; created when missing.",
        }),
      ),
      tools: Type.Optional(
        Type.Record(Type.String(), Type.Boolean(), {
          description: "Per-tool switch: any true ⇒ only the true ones; only false ⇒ all but those.",
        }),
      ),
      env: Type.Optional(
        Type.Array(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$" }), {
          description: "Names of service environment variables bash may see (besides PATH, HOME, LANG, TMPDIR).",
        }),
      ),
      inheritEnv: Type.Optional(
        Type.Boolean({
          description:
            "true: bash sees the service's whole environment (its secrets included) instead of PATH, HOME, LANG, TMPDIR and `env`. Default false.",
        }),
      ),
      shell: Type.Optional(
        Type.String({ description: "Shell bash runs commands with (`<shell> -c <command>`). Default /bin/bash, else /bin/sh." }),
      ),
      runAs: Type.Optional(
        Type.Union(
          [
            Type.Object(
              {
                uid: Type.Integer({ minimum: 0, description: "User id bash commands run as (the service must run as root to switch)." }),
                gid: Type.Integer({ minimum: 0, description: "Group id bash commands run as; supplementary groups are dropped." }),
              },
              { additionalProperties: false },
            ),
            Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_.-]*$", description: "A user name from /etc/passwd (its uid and primary gid)." }),
          ],
          {
            description:
              "Run bash commands as this unprivileged user, so they cannot read the service's /proc/<pid>/environ or its files. Needs a root service.",
          },
        ),
      ),
      sandbox: Type.Optional(
        Type.Union(
          [
            SandboxMode,
            Type.Object(
              {
                mode: Type.Optional(SandboxMode),
                network: Type.Optional(
                  Type.Boolean({ description: "false: commands get no network (their own empty network namespace). Default true." }),
                ),
              },
              { additionalProperties: false },
            ),
          ],
          {
            description:
              "Where bash commands run: auto (default: bubblewrap when bwrap works on this machine, else none), bubblewrap (required: refuse to start without it), off.",
          },
        ),
      ),
      outputLimitBytes: Type.Optional(
        Type.Integer({ minimum: 1024, description: "Cap on bash output and grep/glob listings. Default 65536." }),
      ),
      maxFileBytes: Type.Optional(
        Type.Integer({
          minimum: 1024,
          description: "read refuses larger files unless windowed; grep skips them; edit/apply_patch refuse them. Default 1048576.",
        }),
      ),
      maxScanFiles: Type.Optional(
        Type.Integer({ minimum: 1, description: "grep/glob stop walking after this many directory entries. Default 20000." }),
      ),
    },
    { additionalProperties: false },
  ),
]);

/** One declared HTTP endpoint. */
export const HttpTool = Type.Object(
  {
    name: Type.String({ pattern: "^[a-zA-Z0-9_-]+$" }),
    description: Type.Optional(Type.String()),
    method: Type.Optional(Type.String({ default: "GET" })),
    url: Type.String({ description: "May hold {placeholders}, filled (URL-encoded) from the arguments of the same name." }),
    headers: Type.Optional(Type.Record(Type.String(), Type.String(), { description: "Use ${VAR} for tokens; values are never logged." })),
    query: Type.Optional(Type.Array(Type.String(), { description: "Argument names sent in the query string." })),
    body: Type.Optional(
      Type.Union([Type.Literal("json"), Type.Literal("form"), Type.Literal("raw")], {
        description: "How the remaining arguments are sent. Default json; raw sends the `body` argument as is.",
      }),
    ),
    inputSchema: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: "Default: built from the placeholders and query names." }),
    ),
    timeout: Type.Optional(Type.Integer({ minimum: 1, description: "Milliseconds. Default 30000; when it fires the call answers 504." })),
    resultMode: Type.Optional(Type.Union([Type.Literal("text"), Type.Literal("json"), Type.Literal("status+text")])),
    maxResponseBytes: Type.Optional(Type.Integer({ minimum: 1, description: "Default 10 MiB; a larger body is an isError result." })),
    forwardAuth: Type.Optional(ForwardAuthField),
    upstreamAuth: Type.Optional(UpstreamAuthSection),
  },
  { additionalProperties: false },
);

/** One OpenAPI document imported as tools, one per operation. */
export const OpenApiSource = Type.Object(
  {
    spec: Type.String({ description: "File path (relative to the config) or http(s) URL of an OpenAPI 3.x / Swagger 2.0 document." }),
    baseUrl: Type.Optional(
      Type.String({ description: "Default: the document's first server (relative ones resolved against the spec URL)." }),
    ),
    prefix: Type.Optional(
      Type.Union([Type.String({ minLength: 1 }), Type.Literal(false)], {
        description: "Tool names are prefix_operationId. Default (or false): the operationId alone.",
      }),
    ),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: "Sent with every operation (and the spec fetch); use ${VAR} for tokens." }),
    ),
    operations: Type.Optional(
      Type.Record(Type.String(), Type.Boolean(), { description: "operationId → bool: any true ⇒ allowlist, only false ⇒ droplist." }),
    ),
    timeout: Type.Optional(Type.Integer({ minimum: 1, description: "Milliseconds per call (and for fetching the spec). Default 30000." })),
    maxResponseBytes: Type.Optional(Type.Integer({ minimum: 1, description: "Default 10 MiB." })),
    forwardAuth: Type.Optional(ForwardAuthField),
    upstreamAuth: Type.Optional(UpstreamAuthSection),
  },
  { additionalProperties: false },
);

/**
 * One remote A2A agent. The `agents` key is only an identifier: tool names
 * take their prefix from the fetched card's `name`.
 */
export const A2aAgent = Type.Object(
  {
    card: Type.String({
      pattern: "^[hH][tT][tT][pP][sS]?://",
      description: "URL of the Agent Card, e.g. http://peer:9999/.well-known/agent-card.json.",
    }),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: "Sent with every request to the agent (card included); use ${VAR} for tokens.",
      }),
    ),
    timeout: Type.Optional(Type.Integer({ minimum: 1, description: "Milliseconds one call may take, polling included. Default 300000." })),
    pollEvery: Type.Optional(Type.Integer({ minimum: 1, description: "Milliseconds between task polls. Default 1000." })),
    forwardAuth: Type.Optional(ForwardAuthField),
    upstreamAuth: Type.Optional(UpstreamAuthSection),
    prefix: Type.Optional(
      Type.Union([Type.String({ minLength: 1 }), Type.Literal(false)], {
        description: "Tool names are prefix_skill (sanitized). Default: the card's name. false: the skill ids alone.",
      }),
    ),
    enabled: Type.Optional(Type.Boolean()),
    disabled: Type.Optional(Type.Boolean({ description: "true wins over enabled." })),
  },
  { additionalProperties: false },
);

export type BuiltinsConfig = Static<typeof BuiltinsSection>;
export type HttpToolConfig = Static<typeof HttpTool>;
export type OpenApiConfig = Static<typeof OpenApiSource>;
export type A2aAgentConfig = Static<typeof A2aAgent>;
