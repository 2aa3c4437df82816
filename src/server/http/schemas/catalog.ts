/**
 * The wire shapes of the catalog: a tool as listed, `GET /tools` (its query and provider
 * formats), a tool's path parameters, and `GET /skills`.
 */
import { Type } from "../typebox-lite.js";
import { BUNDLE_NAME } from "../../../config/schema/constants.js";
import { TOOL_NAME } from "../../../core/checks/tool-name.js";
import type { ToolSource } from "../../../core/types.js";
import { FreeObject, StringEnum } from "./common.js";

/** Every value of a tool's `source`, as `?source=` accepts them. */
export const TOOL_SOURCES = ["mcp", "skill", "builtin", "native", "http", "a2a", "custom"] as const satisfies readonly ToolSource[];

/** The provider shapes of `?format=`. */
export const TOOL_FORMATS = ["openai", "anthropic", "gemini"] as const;

/** A tool as listed: no behaviour. */
export const ToolInfo = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    inputSchema: FreeObject,
    source: StringEnum(TOOL_SOURCES),
    /** `GET /tools/{name}`: what an MCP server declared beyond these (`_meta`, an MCP App's `ui` among it). */
    metadata: Type.Optional(FreeObject),
  },
  { $id: "ToolInfo" },
);

/** `GET /tools`. */
export const ToolList = Type.Object({ tools: Type.Array(Type.Ref(ToolInfo)) }, { $id: "ToolList" });

/** `GET /tools?format=openai|anthropic|gemini`: the provider's own declaration shape. */
export const AdapterToolList = Type.Object({ tools: Type.Array(FreeObject) }, { $id: "AdapterToolList" });

// What `?source=` accepts: known sources, comma-separated (spaces around them allowed).
const ONE_SOURCE = `\\s*(${TOOL_SOURCES.join("|")})\\s*`;
const SOURCE_LIST = `^${ONE_SOURCE}(,${ONE_SOURCE})*$`;

/** Query of `GET /tools`. */
export const ToolListQuery = Type.Object(
  {
    source: Type.Optional(Type.String({ maxLength: 256, pattern: SOURCE_LIST, description: "Comma-separated sources, e.g. mcp,http." })),
    format: Type.Optional(StringEnum(TOOL_FORMATS)),
    bundle: Type.Optional(
      Type.String({
        maxLength: 64,
        pattern: BUNDLE_NAME,
        description: "Only the tools of this bundle (config `bundles:`) the caller may use.",
      }),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description:
          "Search: the caller's tools ranked by relevance to these words (name, title, description, parameters), best first; stemmed, typo-tolerant, prefixes match.",
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, format: "int32", description: "With ?q=: at most this many results (default 20)." }),
    ),
  },
  { additionalProperties: false },
);

/** Path parameters naming a tool. */
export const ToolParams = Type.Object({ name: Type.String({ pattern: TOOL_NAME.source, maxLength: 128 }) });

/** `GET /skills`. */
export const SkillList = Type.Object(
  {
    skills: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), location: Type.String() })),
    skipped: Type.Array(Type.Object({ reason: Type.String(), location: Type.String(), error: Type.Optional(Type.String()) })),
  },
  { $id: "SkillList" },
);
