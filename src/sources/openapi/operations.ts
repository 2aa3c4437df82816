import { sanitize } from "../../core/sanitize.js";
import type { JSONSchema } from "../../core/types.js";
import { isRecord, toJsonSchema } from "./json-schema.js";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** Header parameters OpenAPI says to ignore: the HTTP layer owns them. */
const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"]);

/** Where one argument goes. */
export interface ParamSpec {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  /** The argument's name in the tool's inputSchema. */
  arg: string;
  style?: string;
  explode?: boolean;
}

/** How the request body is sent and where its value comes from. */
interface BodySpec {
  mediaType: string;
  mode: "json" | "form" | "raw";
  /** Merged: the body object's properties are top-level arguments; else one argument holds it. */
  merged: boolean;
  /** The argument holding the whole body when not merged. */
  arg: string;
  required: boolean;
}

/** One operation, ready to become a tool. */
export interface OperationSpec {
  /** operationId, or `method_path` when there is none: what `operations` filters on. */
  id: string;
  method: string;
  path: string;
  description: string;
  inputSchema: JSONSchema;
  params: ParamSpec[];
  body?: BodySpec;
}

/** The operations of a dereferenced document, and what was skipped (with why). */
export interface ExtractResult {
  operations: OperationSpec[];
  warnings: string[];
}

/** Every operation of a dereferenced OpenAPI 3.x or Swagger 2.0 document. */
export function extractOperations(doc: Record<string, unknown>): ExtractResult {
  const swagger2 = typeof doc.swagger === "string";
  const operations: OperationSpec[] = [];
  const warnings: string[] = [];
  const paths = isRecord(doc.paths) ? doc.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isRecord(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isRecord(op)) continue;
      const id = typeof op.operationId === "string" && op.operationId ? op.operationId : fallbackId(method, path);
      try {
        operations.push(buildOperation(id, method, path, op, mergeParams(item.parameters, op.parameters), swagger2, doc));
      } catch (err) {
        warnings.push(`${id}: ${(err as Error).message}; skipped`);
      }
    }
  }
  return { operations, warnings };
}

/** `GET /pets/{petId}` ⇒ `get_pets_petId`. */
export function fallbackId(method: string, path: string): string {
  return sanitize(`${method}_${path.replace(/[{}]/g, "")}`)
    .replace(/_+/g, "_")
    .replace(/_$/, "");
}

function mergeParams(pathLevel: unknown, opLevel: unknown): Record<string, unknown>[] {
  const byKey = new Map<string, Record<string, unknown>>();
  for (const list of [pathLevel, opLevel]) {
    if (!Array.isArray(list)) continue;
    for (const p of list) if (isRecord(p) && typeof p.name === "string") byKey.set(`${String(p.in)}:${p.name}`, p);
  }
  return [...byKey.values()];
}

function buildOperation(
  id: string,
  method: string,
  path: string,
  op: Record<string, unknown>,
  rawParams: Record<string, unknown>[],
  swagger2: boolean,
  doc: Record<string, unknown>,
): OperationSpec {
  const properties: Record<string, JSONSchema> = {};
  const required: string[] = [];
  const params: ParamSpec[] = [];
  const formParams: Record<string, unknown>[] = [];
  let bodySchema: unknown;
  let bodyMedia: string | undefined;
  let bodyRequired = false;

  for (const p of rawParams) {
    const where = String(p.in);
    if (where === "body") {
      bodySchema = p.schema;
      bodyMedia = "application/json";
      bodyRequired = p.required === true;
      continue;
    }
    if (where === "formData") {
      formParams.push(p);
      continue;
    }
    if (where !== "path" && where !== "query" && where !== "header" && where !== "cookie") continue;
    const name = p.name as string;
    if (where === "header" && IGNORED_HEADERS.has(name.toLowerCase())) continue;
    const arg = name in properties ? `${where}_${name}` : name;
    properties[arg] = paramSchema(p, swagger2);
    if (where === "path" || p.required === true) required.push(arg);
    params.push({
      name,
      in: where,
      arg,
      ...(typeof p.style === "string" ? { style: p.style } : {}),
      ...(typeof p.explode === "boolean" ? { explode: p.explode } : {}),
    });
  }

  if (formParams.length) {
    bodyMedia = consumes(op, doc).find((c) => c.includes("multipart")) ? "multipart/form-data" : "application/x-www-form-urlencoded";
    const props: Record<string, unknown> = {};
    const req: string[] = [];
    for (const p of formParams) {
      props[p.name as string] = paramSchema(p, true);
      if (p.required === true) req.push(p.name as string);
    }
    bodySchema = { type: "object", properties: props, ...(req.length ? { required: req } : {}) };
    bodyRequired = req.length > 0;
  } else if (!swagger2 && isRecord(op.requestBody)) {
    const rb = op.requestBody;
    const content = isRecord(rb.content) ? rb.content : {};
    bodyMedia = pickMediaType(Object.keys(content));
    bodyRequired = rb.required === true;
    if (!bodyMedia) {
      if (bodyRequired) throw new Error(`no supported request body media type (${Object.keys(content).join(", ") || "none"})`);
    } else {
      const media = content[bodyMedia];
      bodySchema = isRecord(media) && media.schema !== undefined ? media.schema : {};
    }
  }

  let body: BodySpec | undefined;
  if (bodyMedia && bodySchema !== undefined) {
    if (bodyMedia.includes("multipart")) {
      if (bodyRequired) throw new Error("multipart request bodies are not supported");
    } else {
      const mode = bodyMedia.includes("json") ? "json" : bodyMedia === "application/x-www-form-urlencoded" ? "form" : "raw";
      const schema = mode === "raw" ? { type: "string", ...pickDescription(bodySchema) } : toJsonSchema(bodySchema, { request: true });
      const merged = mode !== "raw" && isObjectSchema(schema) && Object.keys(schema.properties as object).every((k) => !(k in properties));
      const arg = "body" in properties ? "requestBody" : "body";
      if (merged) {
        Object.assign(properties, schema.properties as object);
        if (bodyRequired && Array.isArray(schema.required)) required.push(...(schema.required as string[]));
      } else {
        const d = rbDescription(op);
        properties[arg] = d && schema.description === undefined ? { ...schema, description: d } : schema;
        if (bodyRequired) required.push(arg);
      }
      body = { mediaType: bodyMedia, mode, merged, arg, required: bodyRequired };
    }
  }

  const inputSchema: JSONSchema = { type: "object", properties, ...(required.length ? { required: [...new Set(required)] } : {}) };
  return {
    id,
    method: method.toUpperCase(),
    path,
    description: describe(op, method, path),
    inputSchema,
    params,
    ...(body ? { body } : {}),
  };
}

function paramSchema(p: Record<string, unknown>, swagger2: boolean): JSONSchema {
  let schema: JSONSchema;
  if (!swagger2 && p.schema !== undefined) schema = toJsonSchema(p.schema);
  else if (!swagger2 && isRecord(p.content)) {
    const first = Object.values(p.content)[0];
    schema = toJsonSchema(isRecord(first) ? first.schema : {});
  } else {
    // Swagger 2.0 puts the schema keywords on the parameter itself.
    const { name: _n, in: _i, required: _r, description: _d, allowEmptyValue: _a, collectionFormat: _c, ...rest } = p;
    schema = toJsonSchema(rest);
  }
  return typeof p.description === "string" && p.description ? { ...schema, description: p.description } : schema;
}

/** JSON first (any `+json` too), then urlencoded forms, then text-like bodies sent as a string. */
function pickMediaType(types: string[]): string | undefined {
  const lower = types.map((t) => t.toLowerCase());
  return (
    lower.find((t) => t === "application/json") ??
    lower.find((t) => /[/+]json\b/.test(t)) ??
    lower.find((t) => t === "application/x-www-form-urlencoded") ??
    lower.find((t) => t.startsWith("text/") || t === "application/xml" || t === "application/octet-stream" || t === "*/*") ??
    lower.find((t) => t.startsWith("multipart/"))
  );
}

function consumes(op: Record<string, unknown>, doc: Record<string, unknown>): string[] {
  const list = Array.isArray(op.consumes) ? op.consumes : Array.isArray(doc.consumes) ? doc.consumes : [];
  return list.filter((c): c is string => typeof c === "string");
}

function isObjectSchema(s: JSONSchema): boolean {
  return (
    (s.type === "object" || (s.type === undefined && isRecord(s.properties))) &&
    isRecord(s.properties) &&
    s.allOf === undefined &&
    s.oneOf === undefined &&
    s.anyOf === undefined
  );
}

function rbDescription(op: Record<string, unknown>): string | undefined {
  const rb = op.requestBody;
  return isRecord(rb) && typeof rb.description === "string" ? rb.description : undefined;
}

function pickDescription(schema: unknown): Record<string, unknown> {
  return isRecord(schema) && typeof schema.description === "string" ? { description: schema.description } : {};
}

function describe(op: Record<string, unknown>, method: string, path: string): string {
  const summary = typeof op.summary === "string" ? op.summary.trim() : "";
  const description = typeof op.description === "string" ? op.description.trim() : "";
  if (summary && description && description !== summary) return `${summary}\n\n${description}`;
  return summary || description || `${method.toUpperCase()} ${path}`;
}
