/**
 * The pieces every wire schema builds on: the problem body and its response entry, a string
 * enum, a free JSON object, and one server-sent event. Apart from the shapes of each resource
 * so that those (and the registry in ../schemas.ts) import them without an import cycle.
 */
import { Type } from "../typebox-lite.js";

/** Any JSON object: arguments, metadata, a provider's own declaration. */
export const FreeObject = Type.Object({}, { additionalProperties: true });

/**
 * A string enum as one `{type: string, enum}` schema rather than a union of literals: client
 * generators (openapi-python-client, oapi-codegen) then make one enum type of it, not one per value.
 */
export function StringEnum<const T extends readonly string[]>(values: T, opts: { description?: string; $id?: string } = {}) {
  return Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...opts });
}

/** RFC 9457 problem details with a stable `code`. */
export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: "Stable error code, e.g. TOOL_NOT_FOUND." }),
    requestId: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ pointer: Type.String(), message: Type.String() }))),
  },
  { $id: "Problem", description: "RFC 9457 problem details (application/problem+json)." },
);

/** A route response entry for errors: the shared Problem schema as application/problem+json. */
export const ProblemResponse = {
  description: "Problem details (RFC 9457)",
  content: { "application/problem+json": { schema: Type.Ref(Problem) } },
};

/**
 * The schema of one server-sent event as it travels (what an SSE parser yields, and what a
 * validating client such as Schemathesis checks each event against): its name, its `data:`
 * line of JSON and, on an execution's stream, its `id:`. OpenAPI 3.1 has no per-event slot,
 * so the media type's schema is the event's.
 */
export function sseEvent(names: readonly string[], description: string) {
  return Type.Object(
    {
      event: StringEnum(names),
      data: Type.String({ contentMediaType: "application/json", description: "One line of JSON." }),
      id: Type.Optional(Type.String({ pattern: "^[0-9]{1,9}$", description: "Resume point for Last-Event-ID." })),
    },
    { description },
  );
}
