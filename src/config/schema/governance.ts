import { Type, type Static } from "@sinclair/typebox";
import { stringList } from "./string-list.js";

/** `audit:` — one JSON line per tool call, whatever the transport. */
export const AuditSection = Type.Object(
  {
    sink: Type.Union([Type.Literal("stdout"), Type.Literal("file")], {
      default: "stdout",
      description: "stdout (beside the log; stderr under `toolnexus mcp`) or a size-rotated file.",
    }),
    path: Type.Optional(Type.String({ minLength: 1, description: "The audit file (sink: file), relative to the config file." })),
    maxBytes: Type.Integer({
      minimum: 1024,
      default: 104_857_600,
      description: "The most the audit file and its one rotated copy (`<path>.1`) hold together: each gets half.",
    }),
    arguments: Type.Union([Type.Literal("digest"), Type.Literal("redacted"), Type.Literal("full")], {
      default: "digest",
      description:
        "digest: a sha256 of the arguments only; redacted: the arguments with secret-looking values masked; full: as sent. Configured secrets are always removed.",
    }),
    redactKeys: stringList("More argument keys whose values `redacted` masks (case-insensitive), beside password, token, secret, …"),
  },
  { additionalProperties: false },
);

/** `pinning:` — tool definitions recorded at first sight and compared ever after. */
export const PinningSection = Type.Object(
  {
    mode: Type.Union([Type.Literal("off"), Type.Literal("warn"), Type.Literal("block")], {
      default: "warn",
      description:
        "warn: log, count and flag a changed definition in /status; block: also withhold the tool until an operator approves it.",
    }),
    newTools: Type.Union([Type.Literal("allow"), Type.Literal("block")], {
      default: "allow",
      description: "block: a tool never seen before is withheld until approved (mode block only).",
    }),
    file: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "Where pins are kept without `redis:`, relative to the config file. Without either, pins live in the process (a restart forgets them).",
      }),
    ),
    key: Type.String({
      pattern: "^[\\w:.-]{1,200}$",
      default: "toolnexus:pins",
      description: "The Redis hash of the pins (with `redis:`): gateways sharing one Redis but not one catalog use their own.",
    }),
  },
  { additionalProperties: false, default: {} },
);

/** How an MCP endpoint lists the catalog: every tool, or `search_tools` and `call_tool` (progressive discovery). */
export const Discovery = Type.Union([Type.Literal("list"), Type.Literal("search")], {
  description:
    "list: tools/list holds every tool the caller may use. search: it holds search_tools and call_tool (and the alwaysList tools); the caller finds tools by searching and runs them through call_tool.",
});

/** The tools a `discovery: search` endpoint lists beside `search_tools` and `call_tool`. */
export const AlwaysList = Type.Array(Type.String({ minLength: 1 }), {
  description: "Glob patterns over tool names listed as they are with discovery: search (only those the caller may use).",
});

/** One bundle (a virtual server): a named subset of the catalog. */
const Bundle = Type.Object(
  {
    tools: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: "Glob patterns over tool names." }),
    resources: stringList(
      "Glob patterns over the resource URIs and URI templates the bundle shows (`*`: any characters). Default: those of the servers with a tool in the bundle.",
    ),
    prompts: stringList("Glob patterns over the prompt names the bundle shows. Default: those of the servers with a tool in the bundle."),
    description: Type.Optional(Type.String()),
    discovery: Type.Optional(Discovery),
    alwaysList: Type.Optional(AlwaysList),
  },
  { additionalProperties: false },
);

/** `bundles:` — named subsets of the catalog, each with its own MCP endpoint and views. */
export const BundlesSection = Type.Record(Type.String(), Bundle, {
  description: "Bundle name → its tools. Names: letters, digits, _ and -.",
});

export type AuditConfig = Static<typeof AuditSection>;
export type PinningConfig = Static<typeof PinningSection>;
