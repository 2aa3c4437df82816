import type { JSONSchema } from "../../core/types.js";

/** Keywords of OpenAPI's schema dialect that mean nothing to a JSON-Schema validator. */
const DROPPED = new Set(["nullable", "discriminator", "xml", "externalDocs", "example", "x-nullable"]);

/** Deeper than this a schema is cut to `{}`: generated specs can nest without end. */
const MAX_DEPTH = 40;

/** Options of {@link toJsonSchema}. */
export interface ToJsonSchemaOptions {
  /** Request schemas drop readOnly properties: the server sets them, the caller cannot. */
  request?: boolean;
}

/**
 * Turns a dereferenced OpenAPI schema (2.0, 3.0 or 3.1) into a plain, acyclic JSON Schema:
 * circular references (which dereferencing leaves as object cycles) become `{}`, 3.0
 * `nullable` becomes a `"null"` type, boolean exclusiveMinimum/Maximum become numbers,
 * Swagger's `type: file` becomes a binary string, and `example` becomes `examples`.
 */
export function toJsonSchema(schema: unknown, opts: ToJsonSchemaOptions = {}): JSONSchema {
  const out = convert(schema, opts, new Set(), 0);
  return typeof out === "object" && out !== null && !Array.isArray(out) ? (out as JSONSchema) : {};
}

function convert(node: unknown, opts: ToJsonSchemaOptions, stack: Set<object>, depth: number): unknown {
  if (Array.isArray(node)) return node.map((n) => convert(n, opts, stack, depth + 1));
  if (typeof node !== "object" || node === null) return node;
  if (stack.has(node) || depth > MAX_DEPTH) return {};
  stack.add(node);
  try {
    const src = node as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(src)) {
      if (DROPPED.has(k) || k.startsWith("x-")) continue;
      if (k === "properties" && isRecord(v)) {
        const props: Record<string, unknown> = {};
        for (const [name, p] of Object.entries(v)) {
          if (opts.request && isRecord(p) && p.readOnly === true) continue;
          props[name] = convert(p, opts, stack, depth + 1);
        }
        out.properties = props;
      } else if (k === "enum" || k === "const" || k === "default" || k === "examples") {
        out[k] = v; // values, not schemas
      } else {
        out[k] = convert(v, opts, stack, depth + 1);
      }
    }
    if (src.type === "file") Object.assign(out, { type: "string", format: "binary" });
    if (src.example !== undefined && out.examples === undefined) out.examples = [src.example];
    if ((src.nullable === true || src["x-nullable"] === true) && typeof out.type === "string") out.type = [out.type, "null"];
    for (const [flag, bound] of [
      ["exclusiveMinimum", "minimum"],
      ["exclusiveMaximum", "maximum"],
    ] as const) {
      if (typeof src[flag] === "boolean") {
        delete out[flag];
        if (src[flag] === true && typeof src[bound] === "number") {
          out[flag] = src[bound];
          delete out[bound];
        }
      }
    }
    // A JSON number past 2^53 reaches us already rounded (9223372036854775807 parses as 2^63):
    // forwarding it would send the upstream another id. Such a request is refused, not altered.
    if (src.type === "integer" && src.format === "int64") {
      if (typeof out.maximum !== "number" || out.maximum > Number.MAX_SAFE_INTEGER) out.maximum = Number.MAX_SAFE_INTEGER;
      if (typeof out.minimum !== "number" || out.minimum < Number.MIN_SAFE_INTEGER) out.minimum = Number.MIN_SAFE_INTEGER;
    }
    if (opts.request && Array.isArray(out.required) && isRecord(out.properties)) {
      const props = out.properties;
      const required = (out.required as unknown[]).filter(
        (r) => typeof r === "string" && (r in props || !isRecord(src.properties) || !(r in src.properties)),
      );
      if (required.length) out.required = required;
      else delete out.required;
    }
    return out;
  } finally {
    stack.delete(node);
  }
}

/** True for a plain object. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
