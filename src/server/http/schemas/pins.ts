import { Type } from "../typebox-lite.js";

/** One difference between a pinned tool definition and the one served now. */
const DefinitionChange = Type.Object({
  path: Type.String({
    description: "The field (description, inputSchema, …), inside a schema down to a JSON pointer, e.g. inputSchema/properties/cmd.",
  }),
  change: Type.String({ enum: ["added", "removed", "changed"] }),
  before: Type.Optional(Type.Unknown()),
  after: Type.Optional(Type.Unknown()),
});

/** A tool (prompt, resource template) whose definition is not its pin, or a new one held for approval. */
export const PendingPin = Type.Object(
  {
    tool: Type.String({ description: "The pin key: a tool's name, `prompt:<name>` or `resourceTemplate:<uriTemplate>`." }),
    subject: Type.Optional(Type.String({ enum: ["prompt", "resourceTemplate"], description: "What is pinned, when not a tool." })),
    kind: Type.String({ enum: ["changed", "new"] }),
    pinned: Type.Optional(Type.String({ description: "The pinned digest (sha256 of the canonical definition)." })),
    current: Type.String({ description: "The digest of the definition served now." }),
    changes: Type.Array(DefinitionChange),
    withheld: Type.Boolean({ description: "Held back from every catalog, calls answer 409 TOOL_DEFINITION_CHANGED, until approved." }),
  },
  { $id: "PendingPin" },
);

/** The pinning part of `/status` and `GET /admin/pins`. */
export const PinStatus = Type.Object(
  {
    mode: Type.String({ enum: ["off", "warn", "block"] }),
    newTools: Type.String({ enum: ["allow", "block"] }),
    store: Type.String({ description: "Where pins are kept: a file, redis, or memory." }),
    pending: Type.Array(Type.Ref(PendingPin)),
  },
  { $id: "PinStatus" },
);

/** `POST /admin/pins/{tool}/approve`: the pin now in force. */
export const ApprovedPin = Type.Object(
  {
    tool: Type.String(),
    digest: Type.String(),
    pinnedAt: Type.String(),
    approvedBy: Type.String(),
  },
  { $id: "ApprovedPin" },
);
