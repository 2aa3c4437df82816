import type { ToolInfo } from "../core/types.js";

type Json = Record<string, unknown>;
type OpenApiDoc = Json & { paths?: Record<string, Json>; components?: Json & { schemas?: Record<string, unknown> } };

const LOCAL_DEFS = /^#\/(\$defs|definitions)\/(.+)$/;

/**
 * Adds one concrete `POST /tools/<name>/execute` operation per tool to the generic document
 * (DESIGN §7), and its asynchronous `POST /tools/<name>/executions` (operationId
 * `<name>.submit`), so a generated client has typed methods per tool. Each tool's arguments
 * become `components.schemas.<name>_arguments`; its local `$defs`/`definitions` become
 * components of their own and every local `$ref` is rewritten to point at them.
 */
export function withToolOperations(base: OpenApiDoc, tools: readonly ToolInfo[]): OpenApiDoc {
  const doc = structuredClone(base);
  const paths = (doc.paths ??= {});
  const components = (doc.components ??= {});
  const schemas = (components.schemas ??= {});
  const generic = paths["/tools/{name}/execute"]?.post as Json | undefined;
  const genericResponses = generic?.responses ?? {};
  const submit = paths["/tools/{name}/executions"]?.post as Json | undefined;

  for (const tool of tools) {
    const argsName = `${tool.name}_arguments`;
    const { defs, root } = hoistDefs(tool.name, tool.inputSchema);
    Object.assign(schemas, defs);
    schemas[argsName] = root;
    const body = {
      required: true,
      content: {
        "application/json": {
          schema: {
            type: "object",
            additionalProperties: false,
            required: ["arguments"],
            properties: {
              arguments: { $ref: `#/components/schemas/${argsName}` },
              timeoutMs: { type: "integer", minimum: 1 },
              answer: { $ref: "#/components/schemas/Answer" },
            },
          },
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
        responses: genericResponses,
      },
    };
    // The asynchronous twin (DESIGN §9): same typed body, answered 202 with an Execution.
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
  return doc;
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
        out[k] = m ? `#/components/schemas/${componentOf(decodeURIComponent(m[2] ?? ""))}` : v === "#" ? `#/components/schemas/${toolName}_arguments` : v;
        continue;
      }
      if (k === "$schema" || k === "$id") continue; // meaningless inside an OpenAPI document
      out[k] = rewrite(v);
    }
    return out;
  };
  return { root: rewrite(schema) as Json, defs };
}

function firstLine(s: string): string {
  return s.split("\n", 1)[0]?.trim().slice(0, 120) ?? "";
}
