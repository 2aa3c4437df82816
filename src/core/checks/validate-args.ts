import { Ajv, type ValidateFunction, type ErrorObject } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { shapeError } from "./argument-shape.js";
import type { FieldError } from "../errors.js";
import type { JSONSchema } from "../types.js";

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
type AddFormats = (ajv: Ajv | Ajv2020) => unknown;
const addFormats: AddFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

const OLD_DRAFT = /draft-0[4-7]/;

/**
 * Validates tool arguments against the tool's inputSchema. Each schema is compiled on the
 * first call that needs it and cached by identity: compiling every schema of a large catalog
 * at assembly took most of a 10,000-tool start-up (about 0.5 ms each). What makes a schema
 * uncompilable in practice, a `$ref` that points nowhere, is checked at assembly without
 * compiling (a schema referring outside itself is compiled then), so such a tool is refused
 * before a call meets it; one that fails to compile for another reason answers its calls with
 * an error saying so.
 */
export class ArgsValidator {
  private readonly cache = new WeakMap<JSONSchema, ValidateFunction | string>();
  private draft7?: Ajv;
  private draft2020?: Ajv2020;

  /**
   * Field errors for `args`, or an empty array when they are valid. Arguments nested too deep
   * or too large are refused before the schema sees them (their pointer says where).
   */
  validate(schema: JSONSchema, args: unknown): FieldError[] {
    const shape = shapeError(args);
    if (shape) return [shape];
    const fn = this.compiled(schema);
    if (typeof fn === "string") return [{ pointer: "", message: `cannot be validated: the inputSchema does not compile (${fn})` }];
    return fn(args) ? [] : (fn.errors ?? []).map(toFieldError);
  }

  /** Why `schema` cannot be compiled, or undefined when it can (checked without compiling where its references allow). */
  compileError(schema: JSONSchema): string | undefined {
    const refs = localRefError(schema);
    if (refs === undefined) return undefined;
    if (refs !== NON_LOCAL) return `can't resolve reference ${refs}`;
    const fn = this.compiled(schema);
    return typeof fn === "string" ? fn : undefined;
  }

  private compiled(schema: JSONSchema): ValidateFunction | string {
    let fn = this.cache.get(schema);
    if (fn === undefined) {
      fn = this.compile(schema);
      this.cache.set(schema, fn);
    }
    return fn;
  }

  private compile(schema: JSONSchema): ValidateFunction | string {
    // $id and $schema are dropped: two tools may share an $id, and the dialect is chosen here.
    const { $id: _id, $schema, ...body } = schema;
    const ajv = typeof $schema === "string" && OLD_DRAFT.test($schema) ? this.ajv7() : this.ajv2020();
    try {
      return ajv.compile(body);
    } catch (err) {
      return (err as Error).message;
    }
  }

  private ajv7(): Ajv {
    if (!this.draft7) {
      this.draft7 = new Ajv({ allErrors: true, strict: false, validateSchema: false, addUsedSchema: false });
      addFormats(this.draft7);
    }
    return this.draft7;
  }

  private ajv2020(): Ajv2020 {
    if (!this.draft2020) {
      this.draft2020 = new Ajv2020({ allErrors: true, strict: false, validateSchema: false, addUsedSchema: false });
      addFormats(this.draft2020);
    }
    return this.draft2020;
  }
}

const NON_LOCAL = Symbol("non-local reference");

/**
 * The first `$ref` of `schema` that points nowhere inside it, NON_LOCAL when one points
 * outside it (or is a `$dynamicRef`: only compiling tells), else undefined.
 */
function localRefError(schema: JSONSchema): string | typeof NON_LOCAL | undefined {
  const anchors = new Set<string>();
  const refs: string[] = [];
  let nonLocal = false;
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== "object" || node === null) return;
    for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
      if (k === "$ref" && typeof v === "string") {
        if (v.startsWith("#")) refs.push(v);
        else nonLocal = true;
      } else if (k === "$dynamicRef" || k === "$recursiveRef" || (k === "$id" && node !== schema)) nonLocal = true;
      else if (k === "$anchor" && typeof v === "string") anchors.add(v);
      walk(v);
    }
  };
  walk(schema);
  if (nonLocal) return NON_LOCAL;
  return refs.find((r) => !(r.startsWith("#/") || r === "#" ? resolvePointer(schema, r.slice(1)) : anchors.has(r.slice(1))));
}

/** True when the JSON pointer `pointer` ("" or "/a/b") names something in `root`. */
function resolvePointer(root: unknown, pointer: string): boolean {
  let node = root;
  for (const raw of pointer.split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof node !== "object" || node === null || !(key in node)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return true;
}

/** Turns one Ajv error into a JSON pointer plus a message. */
function toFieldError(e: ErrorObject): FieldError {
  const params = e.params as Record<string, unknown>;
  if (e.keyword === "required" && typeof params.missingProperty === "string") {
    return { pointer: `${e.instancePath}/${escapePointer(params.missingProperty)}`, message: "is required" };
  }
  if (e.keyword === "additionalProperties" && typeof params.additionalProperty === "string") {
    return { pointer: `${e.instancePath}/${escapePointer(params.additionalProperty)}`, message: "is not allowed" };
  }
  return { pointer: e.instancePath, message: e.message ?? e.keyword };
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
