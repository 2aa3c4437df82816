import { Type, type Static } from "@sinclair/typebox";
import { Problem, Progress, StringEnum, ToolResult } from "../http/schemas.js";

/**
 * Wire shapes of asynchronous executions, one TypeBox schema each: Fastify
 * validates and serializes with them and they become components of openapi/openapi.json.
 */

const STATUSES = ["queued", "running", "input_required", "succeeded", "failed", "cancelled"] as const;

/** Where an execution is in its life; the last three are terminal. */
const ExecutionStatus = StringEnum(STATUSES, { $id: "ExecutionStatus" });

/** The questions a held call waits on, keyed by id (MCP 2026-07-28 `inputRequests`): each a bare `{ method, params }`. */
const InputRequests = Type.Record(
  Type.String({ maxLength: 128 }),
  Type.Object({
    method: StringEnum(["elicitation/create", "sampling/createMessage", "roots/list"]),
    params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  }),
  { $id: "InputRequests", description: "Keyed by request id; answer each under the same key in `inputResponses`." },
);

/** Body of `POST /executions/{id}/input`: one bare result (ElicitResult, CreateMessageResult, ListRootsResult) per request id. */
export const InputBody = Type.Object(
  {
    inputResponses: Type.Record(Type.String({ maxLength: 128 }), Type.Record(Type.String(), Type.Unknown()), {
      description: "Keyed by the ids of the execution's `inputRequests`, every one answered.",
    }),
  },
  { additionalProperties: false },
);

/** An asynchronous call and, once it ended, its result or problem. */
export const Execution = Type.Object(
  {
    id: Type.String({ description: "Opaque id; the path segment of /executions/{id}." }),
    tool: Type.String(),
    status: Type.Ref(ExecutionStatus),
    createdAt: Type.String({ format: "date-time" }),
    updatedAt: Type.String({ format: "date-time" }),
    expiresAt: Type.String({ format: "date-time", description: "After this the execution answers 404." }),
    progress: Type.Optional(Type.Ref(Progress)),
    inputRequests: Type.Optional(Type.Ref(InputRequests, { description: "Set while `input_required`: what the call waits on." })),
    result: Type.Optional(Type.Ref(ToolResult)),
    error: Type.Optional(Type.Ref(Problem)),
  },
  { $id: "Execution" },
);

/** `GET /executions`. */
export const ExecutionList = Type.Object(
  {
    executions: Type.Array(Type.Ref(Execution)),
    next: Type.Optional(Type.String({ description: "Cursor of the next page; absent on the last one." })),
  },
  { $id: "ExecutionList" },
);

/** Path parameters naming an execution. */
export const ExecutionParams = Type.Object({ id: Type.String({ pattern: "^[0-9a-f]{32}$", minLength: 32, maxLength: 32 }) });

/** Query of `GET /executions`. */
export const ExecutionListQuery = Type.Object(
  {
    status: Type.Optional(Type.Ref(ExecutionStatus)),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, format: "int32" }),
    cursor: Type.Optional(Type.String({ pattern: "^[0-9]{1,16}$", maxLength: 16, description: "The `next` of the previous page." })),
  },
  { additionalProperties: false },
);

/** Headers of `POST /tools/{name}/executions`. */
export const SubmitHeaders = Type.Object({
  "idempotency-key": Type.Optional(
    Type.String({ minLength: 1, maxLength: 256, description: "Same key within the retention ⇒ the same execution; scoped to the caller." }),
  ),
});

/** Headers of `GET /executions/{id}/events`. */
export const EventsHeaders = Type.Object({
  "last-event-id": Type.Optional(Type.String({ pattern: "^[0-9]{1,9}$", maxLength: 9, description: "Resume after this event." })),
});

/** Every execution schema with an $id, registered with Fastify next to the shared ones. */
export const EXECUTION_SCHEMAS = [ExecutionStatus, InputRequests, Execution, ExecutionList];

export type ExecutionT = Static<typeof Execution>;
export type ExecutionStatusT = Static<typeof ExecutionStatus>;

/** True for a status the execution never leaves. */
export function isTerminal(status: ExecutionStatusT): boolean {
  return status === "succeeded" || status === "failed" || status === "cancelled";
}
