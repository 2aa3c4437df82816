import type { ToolInfo } from "../../core/types.js";
import { exampleArguments } from "./tool-examples.js";

type Json = Record<string, unknown>;
type OpenApiDoc = Json & { paths?: Record<string, Json>; components?: Json & { schemas?: Record<string, unknown> } };

// The keys of a path item that are operations (the others: summary, parameters, servers…).
const VERBS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

const LOCAL_DEFS = /^#\/(\$defs|definitions)\/(.+)$/;

/**
 * Adds one concrete `POST /tools/<name>/execute` operation per tool to the generic document,
 * and its asynchronous `POST /tools/<name>/executions` (operationId
 * `<name>.submit`), so a generated client has typed methods per tool. Each tool's arguments
 * become `components.schemas.<name>_arguments`; its local `$defs`/`definitions` become
 * components of their own and every local `$ref` is rewritten to point at them.
 * `needsArguments` says whether a tool refuses the call without a body (which runs it with `{}`):
 * only then are the body and its `arguments` required.
 */
export function withToolOperations(
  base: OpenApiDoc,
  tools: readonly ToolInfo[],
  needsArguments: (tool: ToolInfo) => boolean = requiresSomething,
): OpenApiDoc {
  const doc = structuredClone(base);
  const paths = (doc.paths ??= {});
  const components = (doc.components ??= {});
  const schemas = (components.schemas ??= {});
  const generic = paths["/tools/{name}/execute"]?.post as Json | undefined;
  const genericResponses = (generic?.responses ?? {}) as Json;
  const submit = paths["/tools/{name}/executions"]?.post as Json | undefined;

  for (const tool of tools) {
    const argsName = `${tool.name}_arguments`;
    const { defs, root } = hoistDefs(tool.name, tool.inputSchema);
    // Without a body the call runs with `{}`: arguments are required only when that fails the schema.
    const required = needsArguments(tool);
    Object.assign(schemas, defs);
    schemas[argsName] = root;
    // An explicit example: generated from the envelope schema, Swagger UI would send timeoutMs: 1.
    const example = exampleArguments(root, doc);
    const body = {
      required,
      content: {
        "application/json": {
          schema: {
            type: "object",
            additionalProperties: false,
            ...(required ? { required: ["arguments"] } : {}),
            properties: {
              arguments: { $ref: `#/components/schemas/${argsName}` },
              timeoutMs: { type: "integer", minimum: 1, maximum: 2_147_483_647 },
              answer: { $ref: "#/components/schemas/Answer" },
            },
          },
          ...(example ? { example: { arguments: example } } : {}),
        },
      },
    };
    const summary = firstLine(tool.description) || `Run ${tool.name}`;
    paths[`/tools/${tool.name}/execute`] = {
      post: {
        operationId: tool.name,
        summary,
        description: tool.description,
        tags: [`source:${tool.source}`],
        requestBody: body,
        // Only an MCP tool's upstream can ask mid-call and so promote the call (202).
        responses: tool.source === "mcp" ? genericResponses : withoutPromotion(genericResponses),
      },
    };
    // The asynchronous twin: same typed body, answered 202 with an Execution.
    // A dot cannot occur in a tool name, so this operationId never collides with a tool's.
    if (submit) {
      paths[`/tools/${tool.name}/executions`] = {
        post: {
          operationId: `${tool.name}.submit`,
          summary: `${summary} (asynchronously)`,
          tags: [`source:${tool.source}`],
          ...(submit.parameters ? { parameters: (submit.parameters as Json[]).filter((p) => p.in !== "path") } : {}),
          requestBody: body,
          responses: submit.responses ?? {},
        },
      };
    }
  }
  // The tools' groups before the generic ones: the portal shows tags in the document's order.
  const sources = [...new Set(tools.map((t) => t.source))].map((source) => ({
    name: `source:${source}`,
    description: `Tools from ${source} sources.`,
  }));
  if (sources.length > 0) doc.tags = [...sources, ...((doc.tags as Json[] | undefined) ?? [])];
  return doc;
}

/** The execute responses without the 202 of a promoted call. */
function withoutPromotion(responses: Json): Json {
  const { 202: _promoted, ...rest } = responses;
  return rest;
}

/** Whether `{}` fails the schema, judged from its top-level `required` alone (no validator at hand). */
function requiresSomething(tool: ToolInfo): boolean {
  return Array.isArray(tool.inputSchema.required) && tool.inputSchema.required.length > 0;
}

/**
 * Makes the document's security true of the deployment: without API keys no
 * operation requires one; with keys, the probes (declared so in their schema) and the routes
 * in `openPaths` (their `publicWhen` holds: `/metrics` with `metrics.public`) require none.
 */
export function withSecurity(doc: OpenApiDoc, opts: { authEnabled: boolean; openPaths: readonly string[] }): OpenApiDoc {
  const out: OpenApiDoc = { ...doc, paths: { ...doc.paths } };
  if (!opts.authEnabled) {
    delete out.security;
    if (out.components) {
      const { securitySchemes: _unused, ...rest } = out.components;
      out.components = rest;
    }
    for (const [path, item] of Object.entries(out.paths ?? {})) {
      out.paths![path] = Object.fromEntries(Object.entries(item).map(([verb, op]) => [verb, withoutKey(op as Json, "security")]));
    }
    return out;
  }
  for (const path of opts.openPaths) {
    const item = out.paths?.[path];
    if (item)
      out.paths![path] = Object.fromEntries(Object.entries(item).map(([k, v]) => [k, VERBS.has(k) ? { ...(v as Json), security: [] } : v]));
  }
  return out;
}

function withoutKey(o: Json, key: string): Json {
  const { [key]: _unused, ...rest } = o;
  return rest;
}

function hoistDefs(toolName: string, schema: Json): { defs: Json; root: Json } {
  const defs: Json = {};
  const componentOf = (def: string) => `${toolName}__${def.replace(/[^a-zA-Z0-9._-]/g, "_")}`;
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (typeof node !== "object" || node === null) return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      if ((k === "$defs" || k === "definitions") && typeof v === "object" && v !== null) {
        for (const [name, def] of Object.entries(v)) defs[componentOf(name)] = rewrite(def);
        continue;
      }
      if (k === "$ref" && typeof v === "string") {
        const m = LOCAL_DEFS.exec(v);
        out[k] = m
          ? `#/components/schemas/${componentOf(decodeURIComponent(m[2] ?? ""))}`
          : v === "#"
            ? `#/components/schemas/${toolName}_arguments`
            : v;
        continue;
      }
      if (k === "$schema" || k === "$id") continue; // meaningless inside an OpenAPI document
      out[k] = rewrite(v);
    }
    return splitNullableEnum(out);
  };
  return { root: rewrite(schema) as Json, defs };
}

/**
 * `{type: ["string", "null"], enum: ["C", "F", null]}` as the equivalent
 * `{anyOf: [{type: "string", enum: ["C", "F"]}, {type: "null"}]}`: client generators read the
 * first as an enum with a "<nil>" member (oapi-codegen) or one class per type (openapi-python-client),
 * the second as an optional enum.
 */
function splitNullableEnum(node: Json): Json {
  const { type, enum: values, ...rest } = node;
  if (!Array.isArray(values) || !values.includes(null) || "anyOf" in rest) return node;
  const types = (Array.isArray(type) ? type : type === undefined ? [] : [type]).filter((t) => t !== "null");
  const nonNull = values.filter((v) => v !== null);
  if (nonNull.length === 0) return node;
  const typed = types.length === 0 ? {} : { type: types.length === 1 ? types[0] : types };
  return { ...rest, anyOf: [{ ...typed, enum: nonNull }, { type: "null" }] };
}

function firstLine(s: string): string {
  return s.split("\n", 1)[0]?.trim().slice(0, 120) ?? "";
}
