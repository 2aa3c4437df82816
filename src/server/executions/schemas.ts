import type { Static } from "@sinclair/typebox";
import { Type } from "../http/typebox-lite.js";
import { Problem, ProblemResponse as problem, sseEvent, StringEnum } from "../http/schemas/common.js";
import { ToolParams } from "../http/schemas/catalog.js";
import { ExecuteBody, InputRequests, inputResponses, Progress, ToolResult } from "../http/schemas/calls.js";

/**
 * Wire shapes of asynchronous executions, one TypeBox schema each: Fastify
 * validates and serializes with them and they become components of openapi/openapi.json.
 */

const STATUSES = ["queued", "running", "input_required", "succeeded", "failed", "cancelled"] as const;

/** Where an execution is in its life; the last three are terminal. */
const ExecutionStatus = StringEnum(STATUSES, { $id: "ExecutionStatus" });

/** Body of `POST /executions/{id}/input`: one bare result (ElicitResult, CreateMessageResult, ListRootsResult) per request id. */
const InputBody = Type.Object(
  { inputResponses: inputResponses("Keyed by the ids of the execution's `inputRequests`, every one answered.") },
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
const ExecutionList = Type.Object(
  {
    executions: Type.Array(Type.Ref(Execution)),
    next: Type.Optional(Type.String({ description: "Cursor of the next page; absent on the last one." })),
  },
  { $id: "ExecutionList" },
);

/** Path parameters naming an execution. */
export const ExecutionParams = Type.Object({ id: Type.String({ pattern: "^[0-9a-f]{32}$", minLength: 32, maxLength: 32 }) });

/** Query of `GET /executions`. */
const ExecutionListQuery = Type.Object(
  {
    status: Type.Optional(Type.Ref(ExecutionStatus)),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, format: "int32" }),
    cursor: Type.Optional(Type.String({ pattern: "^[0-9]{1,16}$", maxLength: 16, description: "The `next` of the previous page." })),
  },
  { additionalProperties: false },
);

/** Headers of `POST /tools/{name}/executions`. */
const SubmitHeaders = Type.Object({
  "idempotency-key": Type.Optional(
    Type.String({ minLength: 1, maxLength: 256, description: "Same key within the retention ⇒ the same execution; scoped to the caller." }),
  ),
});

/** Headers of `GET /executions/{id}/events`. */
const EventsHeaders = Type.Object({
  "last-event-id": Type.Optional(Type.String({ pattern: "^[0-9]{1,9}$", maxLength: 9, description: "Resume after this event." })),
});

/** Every execution schema with an $id, registered with Fastify next to the shared ones. */
export const EXECUTION_SCHEMAS = [ExecutionStatus, Execution, ExecutionList];

export type ExecutionT = Static<typeof Execution>;
export type ExecutionStatusT = Static<typeof ExecutionStatus>;

/** An epoch-ms time as the ISO 8601 string executions carry (records, events, the wire). */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** True for a status the execution never leaves. */
export function isTerminal(status: ExecutionStatusT): boolean {
  return status === "succeeded" || status === "failed" || status === "cancelled";
}

// The route schemas of the execution routes (routes.ts), one per route, beside the shapes they use.

/** The Retry-After header of a non-terminal execution, in seconds. */
const RetryAfterHeader = { type: "integer", format: "int32", minimum: 0, maximum: 3600, description: "Seconds to wait before polling." };

/** An answer that is one Execution, with its own description and headers. */
const executionAnswer = (description: string, headers: Record<string, object>) => ({
  description,
  headers,
  content: { "application/json": { schema: Type.Ref(Execution) } },
});

/** `POST /tools/{name}/executions`. */
export const SubmitExecutionSchema = {
  operationId: "submitExecution",
  summary: "Run one tool asynchronously",
  description:
    "Answers 202 at once with the Execution; poll `Location` or stream its events. Lookup, access, limits and arguments are checked before the 202.",
  tags: ["executions"],
  params: ToolParams,
  headers: SubmitHeaders,
  body: Type.Ref(ExecuteBody),
  response: {
    202: executionAnswer("Accepted: the Execution, queued or already running", {
      location: { type: "string", maxLength: 2048, description: "/executions/{id}" },
      "operation-location": { type: "string", maxLength: 2048, description: "The absolute URL of the execution." },
      "retry-after": RetryAfterHeader,
    }),
    "4xx": problem,
    "5xx": problem,
  },
};

/** `GET /executions`. */
export const ListExecutionsSchema = {
  operationId: "listExecutions",
  summary: "The caller's own executions, newest first",
  tags: ["executions"],
  querystring: ExecutionListQuery,
  response: { 200: Type.Ref(ExecutionList), "4xx": problem, "5xx": problem },
};

/** `GET /executions/{id}`. */
export const GetExecutionSchema = {
  operationId: "getExecution",
  summary: "One execution",
  description:
    "404 when unknown, expired or another caller's. With the request header `Prefer: wait=N` (RFC 7240) a queued or running execution is answered once it has ended or asks for input (or after N seconds, at most 30): one request instead of a poll per round trip.",
  tags: ["executions"],
  params: ExecutionParams,
  response: {
    200: executionAnswer("The Execution", {
      "retry-after": { ...RetryAfterHeader, description: "Set while queued or running: seconds to wait before polling again." },
    }),
    "4xx": problem,
    "5xx": problem,
  },
};

/** `POST /executions/{id}/cancel`. */
export const CancelExecutionSchema = {
  operationId: "cancelExecution",
  summary: "Cancel an execution wherever it runs",
  description: "A terminal execution is returned unchanged.",
  tags: ["executions"],
  params: ExecutionParams,
  response: { 200: Type.Ref(Execution), "4xx": problem, "5xx": problem },
};

/** `POST /executions/{id}/input`. */
export const AnswerExecutionInputSchema = {
  operationId: "answerExecutionInput",
  summary: "Answer what an execution waits on",
  description:
    "For an `input_required` execution: one response per key of its `inputRequests` (an ElicitResult, a CreateMessageResult, a ListRootsResult), " +
    "delivered to the call wherever it runs; the execution turns `running` again. 409 EXECUTION_NOT_WAITING when it waits on nothing, 422 INVALID_INPUT_RESPONSES when the keys differ or an answer does not fit its request, " +
    "410 INPUT_TIMEOUT when its wait ran out.",
  tags: ["executions"],
  params: ExecutionParams,
  body: InputBody,
  response: { 200: Type.Ref(Execution), "4xx": problem, "5xx": problem },
};

/** `GET /executions/{id}/events`. */
export const ExecutionEventsSchema = {
  operationId: "streamExecutionEvents",
  summary: "An execution's events (Server-Sent Events)",
  description:
    "`execution` (the current state, no id), then `progress` and `input_required`… and a last `result` or `error`, each with an increasing `id:`. `Last-Event-ID` resumes after that event.",
  tags: ["executions"],
  params: ExecutionParams,
  headers: EventsHeaders,
  response: {
    200: {
      description: "text/event-stream",
      content: {
        "text/event-stream": {
          schema: sseEvent(
            ["execution", "progress", "input_required", "result", "error"],
            "Server-sent events: `execution` (the Execution, first), `progress` (Progress) and `input_required` (`{ inputRequests }`: answer with POST /executions/{id}/input)…, then `result` (ToolResult) or `error` (Problem) last; each after the first numbered with `id:` for Last-Event-ID.",
          ),
        },
      },
    },
    "4xx": problem,
    "5xx": problem,
  },
};
