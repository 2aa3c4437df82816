import { Ajv, type ErrorObject } from "ajv";
import { describe, expect, it } from "vitest";
// @ts-expect-error a plain ES module of scripts/ without types
import { withSharedDefs } from "../../scripts/lib/shared-defs.mjs";

// A shape used twice, with a default inside it: what upstreamAuth or a source's retry is to the
// config schema.
const Retry = {
  type: "object",
  additionalProperties: false,
  properties: {
    attempts: { type: "integer", minimum: 1, maximum: 10, default: 3, description: "How many times a call is tried." },
    backoffMs: { type: "integer", minimum: 0, default: 200, description: "The pause before each new attempt." },
  },
};
// The same shape with a default of its own (the parent applies it, so it must stay in view), and
// a shape under anyOf with a default inside (Ajv fills no default under anyOf; a $ref would).
const WithDefault = { ...Retry, default: {} };
const Limits = { ...Retry, properties: { ...Retry.properties, max: { type: "integer", default: 5, description: "The most at once." } } };
const schema = {
  type: "object",
  additionalProperties: false,
  properties: {
    a: Retry,
    b: { type: "object", properties: { retry: Retry } },
    c: { anyOf: [{ type: "boolean" }, Limits] },
    f: Limits,
    d: WithDefault,
    e: { type: "object", properties: { retry: WithDefault } },
  },
};

const ajvOptions = { allErrors: true, useDefaults: true, strict: false };
const inlined = new Ajv(ajvOptions).compile(schema);
const shared = withSharedDefs(schema) as { $defs?: Record<string, unknown> };
const referenced = new Ajv({ ...ajvOptions, inlineRefs: false }).compile(shared);
const view = (errors: ErrorObject[] | null | undefined) => (errors ?? []).map((e) => [e.instancePath, e.keyword, e.params, e.message]);

describe("the config validator's shared definitions (scripts/lib/shared-defs.mjs)", () => {
  it("makes the repeated shape one definition; one with its own default, or with one inside and under anyOf, stays inline", () => {
    expect(Object.values(shared.$defs ?? {})).toEqual([Retry]);
    expect(JSON.stringify(shared)).toContain('"d":{"type":"object"');
  });

  it.each([
    ["valid, defaults to fill", { a: {}, b: { retry: { attempts: 2 } }, c: {}, d: {}, e: {}, f: {} }],
    [
      "bad values and keys everywhere",
      { a: { attempts: 0, x: 1 }, b: { retry: { backoffMs: -1 } }, c: { attempts: "x" }, d: { attempts: 11 }, f: { max: "x" } },
    ],
    ["a union that matches no form", { c: "yes", e: { retry: { y: true } } }],
    ["the sections absent", {}],
  ])("%s: the same verdict, errors and defaults as the inlined schema", (_, config) => {
    const a = structuredClone(config);
    const b = structuredClone(config);
    expect(referenced(b)).toBe(inlined(a));
    expect(view(referenced.errors)).toEqual(view(inlined.errors));
    expect(b).toEqual(a);
  });
});
