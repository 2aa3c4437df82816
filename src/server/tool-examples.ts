import { sample } from "openapi-sampler";

/**
 * Example `arguments` for a tool, made from its (hoisted) schema by openapi-sampler: only the
 * required properties, each from the schema's own `examples`/`default`/`enum`/`const` where it
 * has one, so the portal's "Try it out" body validates when sent unedited. `undefined` when
 * the schema cannot be sampled; the operation then simply carries no example.
 */
export function exampleArguments(schema: Record<string, unknown>, doc: object): Record<string, unknown> | undefined {
  try {
    const value = sample(schema as Parameters<typeof sample>[0], { skipNonRequired: true, skipReadOnly: true, quiet: true }, doc);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return undefined;
  }
}
