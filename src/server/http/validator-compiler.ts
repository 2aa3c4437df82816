import { AjvCompiler } from "@fastify/ajv-compiler";
import type { FastifyServerOptions } from "fastify";

type BuildValidator = NonNullable<NonNullable<NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]>["buildValidator"]>;
type AjvOptions = Parameters<ReturnType<typeof AjvCompiler>>[1];

/**
 * Fastify's validator factory with one difference: request bodies are validated strictly
 * (no type coercion: `"timeoutMs": "100"` is 400), while querystrings, params and
 * headers, which arrive as strings, are still coerced to the integers and booleans their
 * schemas declare. The split is per HTTP part, so every route with a body schema (execute,
 * executions, …) gets it without opting in.
 */
export function strictBodyValidator(): BuildValidator {
  const coercing = AjvCompiler();
  const strict = AjvCompiler();
  return (externalSchemas, options) => {
    const forStrings = coercing(externalSchemas, options);
    const strictOptions = { ...options, customOptions: { ...options?.customOptions, coerceTypes: false } } as AjvOptions;
    const forBodies = strict(externalSchemas, strictOptions);
    return (route) => (route.httpPart === "body" ? forBodies(route) : forStrings(route));
  };
}
