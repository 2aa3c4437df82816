import { createRequire } from "node:module";
import type * as OpenApiSampler from "openapi-sampler";

type Sampler = typeof OpenApiSampler;
// openapi-sampler (a CommonJS bundle, ~20 ms to load) is required on the first per-tool
// document, not at start-up: a service nobody asks for /openapi.json never loads it.
let sampler: Sampler | undefined;
const loadSampler = (): Sampler => (sampler ??= createRequire(import.meta.url)("openapi-sampler") as Sampler);

/**
 * Example `arguments` for a tool, made from its (hoisted) schema by openapi-sampler: only the
 * required properties, each from the schema's own `examples`/`default`/`enum`/`const` where it
 * has one, so the portal's "Try it out" body validates when sent unedited. `undefined` when
 * the schema cannot be sampled; the operation then simply carries no example.
 */
export function exampleArguments(schema: Record<string, unknown>, doc: object): Record<string, unknown> | undefined {
  const { sample } = loadSampler();
  try {
    const value = sample(schema as Parameters<Sampler["sample"]>[0], { skipNonRequired: true, skipReadOnly: true, quiet: true }, doc);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return undefined;
  }
}
