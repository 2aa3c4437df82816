import { Type as TypeBox } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { Type } from "../../../src/server/http/typebox-lite.js";

/** A schema as its own keys in order, symbols included: what Fastify, Ajv, swagger and TypeBox's guards see. */
function shape(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(shape);
  if (typeof x !== "object" || x === null) return x;
  return Reflect.ownKeys(x).map((k) => [String(k), shape((x as Record<PropertyKey, unknown>)[k])]);
}

// Each case builds one schema with a builder: once with TypeBox's, once with typebox-lite's.
const cases: [string, (T: typeof Type) => unknown][] = [
  ["String with options", (T) => T.String({ pattern: "^a$", maxLength: 128, description: "d" })],
  ["Integer, Number, Boolean, Unknown", (T) => [T.Integer({ minimum: 1 }), T.Number(), T.Boolean({ default: false }), T.Unknown()]],
  ["Literal of each kind", (T) => [T.Literal("a"), T.Literal(1, { description: "one" }), T.Literal(true)]],
  ["Array with options", (T) => T.Array(T.String(), { minItems: 1, description: "d" })],
  [
    "Object with optional and required keys and options",
    (T) => T.Object({ a: T.String(), b: T.Optional(T.Integer()), c: T.Optional(T.Ref("X")) }, { $id: "O", additionalProperties: false }),
  ],
  [
    "Object with optional keys only, and an empty one",
    (T) => [T.Object({ a: T.Optional(T.String()) }), T.Object({}, { additionalProperties: true })],
  ],
  ["Optional of an object with an $id", (T) => T.Optional(T.Object({ a: T.String() }, { $id: "A" }))],
  [
    "Record with a plain and a constrained string key",
    (T) => [T.Record(T.String(), T.Unknown()), T.Record(T.String({ maxLength: 128 }), T.Integer(), { $id: "R", description: "d" })],
  ],
  ["Ref to a schema and to a name, with options", (T) => [T.Ref(T.Object({}, { $id: "S" })), T.Ref("Execution", { description: "d" })]],
  ["Union of two and of one", (T) => [T.Union([T.String(), T.Integer()], { description: "d" }), T.Union([T.String()], { $id: "U" })]],
  ["Unsafe with options", (T) => [T.Unsafe<string>({ type: "string", enum: ["a", "b"], $id: "E" }), T.Unsafe()]],
];

describe("typebox-lite, the route schemas' builders", () => {
  it.each(cases)("%s: the same schema as TypeBox's, keys, order and symbols", (_, build) => {
    expect(shape(build(Type))).toEqual(shape(build(TypeBox as unknown as typeof Type)));
  });

  it("refuses a Record key it does not build as TypeBox does", () => {
    expect(() => Type.Record(Type.Integer() as never, Type.String())).toThrow(/Type.String\(\) key/);
  });
});
