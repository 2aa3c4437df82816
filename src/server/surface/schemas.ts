import { BUNDLE_NAME } from "../../config/schema/constants.js";
import { InputRequests, inputResponses } from "../http/schemas/calls.js";
import { StringEnum } from "../http/schemas/common.js";
import { Type } from "../http/typebox-lite.js";

/**
 * The wire shapes of the REST routes over the MCP surface (resources, templates, prompts,
 * completion): one TypeBox schema per shape, each an OpenAPI component. They follow the MCP
 * shapes field for field, so what `/mcp` answers and what REST answers are the same objects;
 * an item keeps whatever else its server sent (`additionalProperties`).
 */

const FreeObject = Type.Object({}, { additionalProperties: true });
const Meta = Type.Optional(Type.Object({}, { additionalProperties: true, description: "The server's `_meta`, as it sent it." }));
const NextCursor = Type.Optional(
  Type.String({ description: "Present when there is more: pass it as ?cursor= for the next page (opaque)." }),
);
// The longest URI taken in a query: percent-encoded, it still fits the 16 KiB of a request line.
const MAX_URI = 4096;
// A URI is ASCII (RFC 3986), without spaces: anything else is percent-encoded.
const URI_CHARS = "^[\\x21-\\x7e]+$";

const Bundle = Type.Optional(
  Type.String({ maxLength: 64, pattern: BUNDLE_NAME, description: "Only what this bundle (config `bundles:`) shows the caller." }),
);

/** A resource as listed: its catalog URI (`<prefix>+<uri>`), name and what its server said of it. */
const Resource = Type.Object(
  {
    uri: Type.String(),
    name: Type.String(),
    title: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    mimeType: Type.Optional(Type.String()),
    size: Type.Optional(Type.Number()),
  },
  { $id: "Resource", additionalProperties: true },
);

/** `GET /resources`. */
export const ResourceList = Type.Object({ resources: Type.Array(Type.Ref(Resource)), nextCursor: NextCursor }, { $id: "ResourceList" });

/** A resource template: an RFC 6570 URI template in the catalog's form. */
const ResourceTemplate = Type.Object(
  {
    uriTemplate: Type.String(),
    name: Type.String(),
    title: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    mimeType: Type.Optional(Type.String()),
  },
  { $id: "ResourceTemplate", additionalProperties: true },
);

/** `GET /resources/templates`. */
export const ResourceTemplateList = Type.Object(
  { resourceTemplates: Type.Array(Type.Ref(ResourceTemplate)), nextCursor: NextCursor },
  { $id: "ResourceTemplateList" },
);

/** One item of a read: text, or base64 `blob` for binary content. */
const ResourceContents = Type.Object(
  {
    uri: Type.String(),
    mimeType: Type.Optional(Type.String()),
    text: Type.Optional(Type.String()),
    blob: Type.Optional(Type.String({ description: "Base64 of the bytes." })),
    _meta: Meta,
  },
  { $id: "ResourceContents", additionalProperties: true },
);

/** `GET /resources/read` as JSON. */
export const ResourceReadResult = Type.Object(
  { contents: Type.Array(Type.Ref(ResourceContents)), _meta: Meta },
  { $id: "ResourceReadResult" },
);

/** One argument a prompt takes. */
const PromptArgument = Type.Object(
  { name: Type.String(), description: Type.Optional(Type.String()), required: Type.Optional(Type.Boolean()) },
  { $id: "PromptArgument", additionalProperties: true },
);

/** A prompt as listed, under its catalog name (`<prefix>_<name>`). */
const Prompt = Type.Object(
  {
    name: Type.String(),
    title: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    arguments: Type.Optional(Type.Array(Type.Ref(PromptArgument))),
  },
  { $id: "Prompt", additionalProperties: true },
);

/** `GET /prompts`. */
export const PromptList = Type.Object({ prompts: Type.Array(Type.Ref(Prompt)), nextCursor: NextCursor }, { $id: "PromptList" });

/** Arguments of a prompt or of a completion's context: strings only, as MCP has them. */
const StringArguments = Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 65_536 }), {
  maxProperties: 256,
  description: "Argument values, all strings.",
});

/** Body of `POST /prompts/{name}/get`; a retry of a `PromptInputRequired` adds its answers and state. */
export const PromptGetBody = Type.Object(
  {
    arguments: Type.Optional(StringArguments),
    inputResponses: Type.Optional(inputResponses("On a retry: one answer per key of the `inputRequests` it answers.")),
    // The gateway's seal of the upstream's own state, which may be several kB.
    requestState: Type.Optional(
      Type.String({ maxLength: 16_384, description: "On a retry: the `requestState` of the `PromptInputRequired`, as sent." }),
    ),
  },
  { $id: "PromptGetBody", additionalProperties: false, examples: [{ arguments: {} }] },
);

/** One message of a got prompt; `content` is an MCP content part (text, image, audio, resource, resource_link). */
const PromptMessage = Type.Object(
  { role: StringEnum(["user", "assistant"] as const), content: FreeObject },
  { $id: "PromptMessage", additionalProperties: true },
);

/** `POST /prompts/{name}/get`. */
export const PromptGetResult = Type.Object(
  { description: Type.Optional(Type.String()), messages: Type.Array(Type.Ref(PromptMessage)), _meta: Meta },
  { $id: "PromptGetResult" },
);

/** `POST /prompts/{name}/get` when the prompt's server asks first: answer by sending the same request with `inputResponses` and `requestState`. */
export const PromptInputRequired = Type.Object(
  {
    resultType: Type.Literal("input_required"),
    inputRequests: Type.Ref(InputRequests),
    requestState: Type.String({
      maxLength: 16_384,
      description: "Opaque; send it back unchanged with the answers. Bound to this caller and prompt.",
    }),
  },
  { $id: "PromptInputRequired" },
);

/** What a completion is for: a prompt by name, or a resource template by its URI template. */
const CompletionRef = Type.Union(
  [
    Type.Object(
      { type: Type.Literal("ref/prompt"), name: Type.String({ minLength: 1, maxLength: 512, description: "The prompt's name." }) },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        type: Type.Literal("ref/resource"),
        uri: Type.String({ minLength: 1, maxLength: MAX_URI, description: "The template's uriTemplate." }),
      },
      { additionalProperties: false },
    ),
  ],
  { $id: "CompletionRef" },
);

/** Body of `POST /complete`. */
export const CompleteBody = Type.Object(
  {
    ref: Type.Ref(CompletionRef),
    argument: Type.Object(
      { name: Type.String({ maxLength: 256 }), value: Type.String({ maxLength: 65_536 }) },
      { additionalProperties: false, description: "The argument being completed and what was typed so far." },
    ),
    context: Type.Optional(
      Type.Object({ arguments: Type.Optional(StringArguments) }, { additionalProperties: false, description: "Arguments already chosen." }),
    ),
  },
  {
    $id: "CompleteBody",
    additionalProperties: false,
    examples: [{ ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "" } }],
  },
);

/** `POST /complete`. */
export const CompleteResult = Type.Object(
  {
    completion: Type.Object(
      {
        values: Type.Array(Type.String()),
        total: Type.Optional(Type.Integer({ format: "int64" })),
        hasMore: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: true },
    ),
  },
  { $id: "CompleteResult" },
);

/** Query of the lists. */
export const SurfaceListQuery = Type.Object(
  {
    cursor: Type.Optional(Type.String({ maxLength: 10, pattern: "^[0-9a-z]{1,10}$", description: "The nextCursor of the page before." })),
    server: Type.Optional(Type.String({ maxLength: 128, description: "Only what this MCP server (its name in `mcpServers:`) serves." })),
    bundle: Bundle,
  },
  { additionalProperties: false },
);

/** Query of `GET /resources/read`. */
export const ResourceReadQuery = Type.Object(
  {
    uri: Type.String({
      minLength: 1,
      maxLength: MAX_URI,
      pattern: URI_CHARS,
      description: "The resource's URI as listed (`<prefix>+<uri>`). A `+` is taken as itself, not as a space.",
    }),
    bundle: Bundle,
  },
  { additionalProperties: false },
);

/** Path parameters naming a prompt. */
export const PromptParams = Type.Object({ name: Type.String({ maxLength: 128, pattern: "^[\\x21-\\x7e]{1,128}$" }) });

/** Query of the routes taking only `?bundle=`. */
export const BundleQuery = Type.Object({ bundle: Bundle }, { additionalProperties: false });

/** The surface's components, added to the service once. */
export const SURFACE_SCHEMAS = [
  Resource,
  ResourceList,
  ResourceTemplate,
  ResourceTemplateList,
  ResourceContents,
  ResourceReadResult,
  PromptArgument,
  Prompt,
  PromptList,
  PromptGetBody,
  PromptMessage,
  PromptGetResult,
  PromptInputRequired,
  CompletionRef,
  CompleteBody,
  CompleteResult,
];
