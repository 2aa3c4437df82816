// Shared sub-schemas of the config schema as definitions referenced once. TypeBox composes by
// embedding: a shape used in many places (upstreamAuth, a source's retry…) is a copy in each, and
// Ajv's standalone code then validates each copy with its own code (the generated module grew to
// ~1 MB). Here every sub-schema that occurs more than once becomes `#/$defs/dN`, so Ajv compiles it
// to one function that each place calls: the same checks, defaults and errors (instancePath,
// keyword, params, message), with schemaPath pointing into $defs.

// Keywords whose value is a schema, a map of schemas, or an array of schemas.
const ONE = ["additionalProperties", "items", "not", "if", "then", "else", "contains", "propertyNames", "additionalItems"];
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const MANY = ["anyOf", "oneOf", "allOf", "prefixItems"];
// Under these, Ajv does not apply defaults (a failing branch must not fill anything in); code
// compiled for a $ref does not know it is under one, so a sub-schema holding a default that
// occurs there stays inline.
const COMPOSITE = new Set(["anyOf", "oneOf", "allOf", "not", "if", "then", "else"]);
// Smaller shapes are cheaper inline than as a call.
const MIN_CHARS = 120;

const isSchema = (x) => typeof x === "object" && x !== null && !Array.isArray(x);

/** Calls `visit(node, inComposite, replace)` for every sub-schema below `schema` (not `schema` itself). */
function walk(schema, visit, inComposite = false) {
  const child = (node, composite, replace) => {
    if (!isSchema(node)) return;
    visit(node, composite, replace);
    walk(node, visit, composite);
  };
  for (const k of ONE) if (isSchema(schema[k])) child(schema[k], inComposite || COMPOSITE.has(k), (v) => (schema[k] = v));
  for (const k of MAP)
    if (isSchema(schema[k])) for (const p of Object.keys(schema[k])) child(schema[k][p], inComposite, (v) => (schema[k][p] = v));
  for (const k of MANY)
    if (Array.isArray(schema[k])) schema[k].forEach((s, i) => child(s, inComposite || COMPOSITE.has(k), (v) => (schema[k][i] = v)));
  if (Array.isArray(schema.items)) schema.items.forEach((s, i) => child(s, inComposite, (v) => (schema.items[i] = v)));
}

/** A JSON copy of `schema` (TypeBox's symbols dropped) whose repeated sub-schemas are `$ref`s into its `$defs`. */
export function withSharedDefs(schema) {
  const root = JSON.parse(JSON.stringify(schema));
  if (root.$defs !== undefined || root.$id !== undefined) throw new Error("shared-defs: the root schema already has $defs or $id");
  root.$defs = {};
  for (let n = 0; ; n++) {
    const seen = new Map();
    const note = (node, composite) => {
      const text = JSON.stringify(node);
      const entry = seen.get(text) ?? { count: 0, composite: false };
      entry.count++;
      entry.composite ||= composite;
      seen.set(text, entry);
    };
    walk(root, note);
    // The largest repeated shape first: the repeats inside it are then counted once, in $defs.
    const [text] =
      [...seen]
        .filter(([t, e]) => e.count > 1 && t.length >= MIN_CHARS && !('"$ref"' === t.slice(1, 7)) && hoistable(JSON.parse(t), e))
        .sort((a, b) => b[0].length - a[0].length)[0] ?? [];
    if (text === undefined) break;
    const name = `d${n}`;
    walk(root, (node, _, replace) => {
      if (JSON.stringify(node) === text) replace({ $ref: `#/$defs/${name}` });
    });
    root.$defs[name] = JSON.parse(text);
  }
  if (Object.keys(root.$defs).length === 0) delete root.$defs;
  return root;
}

// A sub-schema with its own `default` stays inline: the parent's `properties` applies it, and
// would not see it behind a $ref. One holding a default below it stays inline when it occurs
// under a composite keyword (see COMPOSITE).
function hoistable(node, { composite }) {
  if ("default" in node || "$id" in node) return false;
  return !(composite && JSON.stringify(node).includes('"default":'));
}
