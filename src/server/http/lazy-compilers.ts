import type { FastifyServerOptions } from "fastify";

type Factories = NonNullable<NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]>;
type BuildValidator = NonNullable<Factories["buildValidator"]>;
type BuildSerializer = NonNullable<Factories["buildSerializer"]>;
type Validate = ReturnType<ReturnType<BuildValidator>>;
type DataContext = Parameters<Validate>[1];
type Serialize = ReturnType<ReturnType<BuildSerializer>>;

/**
 * Fastify compiles every route's validators (Ajv) and response serializers
 * (fast-json-stringify) when it starts, and builds an Ajv instance per compiler (two here:
 * coercing and strict), each compiling the JSON-Schema meta-schema: about a third of
 * start-up's CPU for routes most deployments never call (executions, skills, the portal's).
 * These factories hand Fastify the same compilers, each building its Ajv instance on its
 * first compile and each route's function on that route's first request. What is validated,
 * the errors and the bytes sent are unchanged; only when the work is done moves.
 */
export function lazyValidators(build: BuildValidator): BuildValidator {
  return (externalSchemas, options) => {
    let compiler: ReturnType<BuildValidator> | undefined;
    return (route) => {
      let compiled: Validate | undefined;
      const validate: ((data: unknown, parent?: DataContext) => unknown) & { errors?: Validate["errors"]; schemaEnv?: true } = (
        data,
        parent,
      ) => {
        compiled ??= (compiler ??= build(externalSchemas, options))(route);
        const result = compiled(data, parent);
        // Fastify reads the errors of a failed validation off the function it was given.
        validate.errors = compiled.errors ?? null;
        return result;
      };
      // Fastify passes the request as the root's parent (so Ajv can replace a coerced root
      // value) only to a function carrying Ajv's `schemaEnv` mark: every function here is Ajv's.
      validate.schemaEnv = true;
      return validate as unknown as Validate;
    };
  };
}

/** {@link lazyValidators} for response serializers: each built on its first response. */
export function lazySerializers(build: BuildSerializer): BuildSerializer {
  return (externalSchemas, options) => {
    let compiler: ReturnType<BuildSerializer> | undefined;
    return (route) => {
      let compiled: Serialize | undefined;
      return (data) => (compiled ??= (compiler ??= build(externalSchemas, options))(route))(data);
    };
  };
}
