import type { JavaScriptTypeBuilder } from "@sinclair/typebox";

// The route schemas' TypeBox builders, made here: importing `Type` from @sinclair/typebox loads
// ~200 ES modules (~130 ms of CPU at start-up) for the dozen builders the routes use. Each
// function below builds what TypeBox 0.34 builds (same keys in the same order, the same
// `TypeBox.Kind`/`TypeBox.Optional` symbols; test/server/http/typebox-lite.test.ts compares
// them), and is typed as TypeBox's, so `Static` and the Fastify type provider see no difference.

const Kind = Symbol.for("TypeBox.Kind");
const OptionalKind = Symbol.for("TypeBox.Optional");
// TypeBox's pattern for a `Type.String()` key of a `Type.Record`.
const STRING_KEY = "^(.*)$";

type Schema = Record<PropertyKey, unknown>;
type Options = Schema | undefined;

// TypeBox's CreateType in its default instance mode: the options, then the schema's own keys.
const create = (schema: Schema, options?: Options): Schema => (options !== undefined ? { ...options, ...schema } : schema);

function object(properties: Record<string, Schema>, options?: Options): Schema {
  const required = Object.keys(properties).filter((key) => properties[key]?.[OptionalKind] !== "Optional");
  return create(
    required.length > 0 ? { [Kind]: "Object", type: "object", required, properties } : { [Kind]: "Object", type: "object", properties },
    options,
  );
}

function record(key: Schema, value: Schema, options: Schema = {}): Schema {
  // Only string keys are used by the routes: TypeBox's other key kinds make other shapes.
  if (key[Kind] !== "String") throw new Error("typebox-lite: Record takes a Type.String() key");
  const pattern = typeof key.pattern === "string" ? key.pattern : STRING_KEY;
  return create({ [Kind]: "Record", type: "object", patternProperties: { [pattern]: value } }, options);
}

function ref(target: string | Schema, options?: Options): Schema {
  const $ref = typeof target === "string" ? target : target.$id;
  if (typeof $ref !== "string") throw new Error("Ref: $ref must be a string");
  return create({ [Kind]: "Ref", $ref }, options);
}

function union(types: Schema[], options?: Options): Schema {
  // No route makes an empty union (TypeBox's Never); one member is that member with the options.
  if (types.length === 1) return create(types[0] as Schema, options);
  return create({ [Kind]: "Union", anyOf: types }, options);
}

const lite = {
  Array: (items: Schema, options?: Options) => create({ [Kind]: "Array", type: "array", items }, options),
  Boolean: (options?: Options) => create({ [Kind]: "Boolean", type: "boolean" }, options),
  Integer: (options?: Options) => create({ [Kind]: "Integer", type: "integer" }, options),
  Literal: (value: string | number | boolean, options?: Options) =>
    create({ [Kind]: "Literal", const: value, type: typeof value }, options),
  Number: (options?: Options) => create({ [Kind]: "Number", type: "number" }, options),
  Object: object,
  Optional: (schema: Schema) => create({ ...schema, [OptionalKind]: "Optional" }),
  Record: record,
  Ref: ref,
  String: (options?: Options) => create({ [Kind]: "String", type: "string" }, options),
  Union: union,
  Unknown: (options?: Options) => create({ [Kind]: "Unknown" }, options),
  Unsafe: (options: Schema = {}) => create({ [Kind]: options[Kind] ?? "Unsafe" }, options),
};

/** The builders the route schemas use, typed as TypeBox's `Type` (see the comment above). */
export const Type = lite as unknown as Pick<
  JavaScriptTypeBuilder,
  | "Array"
  | "Boolean"
  | "Integer"
  | "Literal"
  | "Number"
  | "Object"
  | "Optional"
  | "Record"
  | "Ref"
  | "String"
  | "Union"
  | "Unknown"
  | "Unsafe"
>;
