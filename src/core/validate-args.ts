import { Ajv, type ValidateFunction, type ErrorObject } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { FieldError } from "./errors.js";
import type { JSONSchema, Logger } from "./types.js";

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
type AddFormats = (ajv: Ajv | Ajv2020) => unknown;
const addFormats: AddFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;

const OLD_DRAFT = /draft-0[4-7]/;

/**
 * Validates tool arguments against the tool's inputSchema. Each schema is compiled once and
 * cached by identity; a schema Ajv cannot compile is logged once and the tool runs unvalidated
 * (a tool from a third-party server must not become uncallable because of its schema).
 */
export class ArgsValidator {
  private readonly cache = new WeakMap<JSONSchema, ValidateFunction | null>();
  private draft7?: Ajv;
  private draft2020?: Ajv2020;

  constructor(private readonly logger: Logger) {}

  /** Field errors for `args`, or an empty array when they are valid (or the schema is unusable). */
  validate(toolName: string, schema: JSONSchema, args: unknown): FieldError[] {
    let fn = this.cache.get(schema);
    if (fn === undefined) {
      fn = this.compile(toolName, schema);
      this.cache.set(schema, fn);
    }
    if (fn === null || fn(args)) return [];
    return (fn.errors ?? []).map(toFieldError);
  }

  private compile(toolName: string, schema: JSONSchema): ValidateFunction | null {
    // $id and $schema are dropped: two tools may share an $id, and the dialect is chosen here.
    const { $id: _id, $schema, ...body } = schema;
    const ajv = typeof $schema === "string" && OLD_DRAFT.test($schema) ? this.ajv7() : this.ajv2020();
    try {
      return ajv.compile(body);
    } catch (err) {
      this.logger.warn({ tool: toolName, err: (err as Error).message }, "inputSchema does not compile; arguments will not be validated");
      return null;
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

/** Turns one Ajv error into a JSON pointer plus a message. */
export function toFieldError(e: ErrorObject): FieldError {
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
