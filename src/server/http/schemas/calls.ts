/**
 * The wire shapes of a call: the execute body and the answer to a suspension it may carry,
 * the tool's result, and the events of a streamed call (progress, log messages).
 */
import { Type } from "../typebox-lite.js";
import { FreeObject, Problem, sseEvent, StringEnum } from "./common.js";

/** The resolution of a suspension, sent on the resumed call. */
export const Answer = Type.Object(
  {
    // An input request's id seals the upstream's requestState, which may be several kB.
    id: Type.String({ maxLength: 16_384, description: "The pending's id, as sent." }),
    ok: Type.Boolean(),
    data: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: "What the tool asked for; for an input request (kind elicitation, sampling or roots): { inputResponses }.",
        },
      ),
    ),
    reason: Type.Optional(Type.String({ maxLength: 65_536 })),
  },
  { $id: "Answer" },
);

/** Questions to the caller, keyed by id (MCP 2026-07-28 `inputRequests`): each a bare `{ method, params }`. */
export const InputRequests = Type.Record(
  Type.String({ maxLength: 128 }),
  Type.Object({
    method: StringEnum(["elicitation/create", "sampling/createMessage", "roots/list"]),
    params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  }),
  { $id: "InputRequests", description: "Keyed by request id; answer each under the same key in `inputResponses`." },
);

/** The answers to `InputRequests`: one bare result (ElicitResult, CreateMessageResult, ListRootsResult) per request id. */
export function inputResponses(description: string) {
  return Type.Record(Type.String({ maxLength: 128 }), Type.Record(Type.String(), Type.Unknown()), { description });
}

/** Body of `POST /tools/{name}/execute`. */
export const ExecuteBody = Type.Object(
  {
    arguments: Type.Optional(FreeObject),
    timeoutMs: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2_147_483_647,
        format: "int32",
        description: "Per-call timeout; capped by server.maxTimeoutMs.",
      }),
    ),
    answer: Type.Optional(Type.Ref(Answer)),
  },
  { $id: "ExecuteBody", additionalProperties: false, examples: [{ arguments: {} }] },
);

/** What a tool returns. `isError: true` is an outcome for the model, still HTTP 200. */
export const ToolResult = Type.Object(
  {
    output: Type.String(),
    isError: Type.Boolean(),
    metadata: Type.Optional(FreeObject),
  },
  { $id: "ToolResult" },
);

/** A tool's progress report: an SSE `progress` event. */
export const Progress = Type.Object(
  {
    progress: Type.Number({ description: "Increases with every report; not necessarily an integer." }),
    total: Type.Optional(Type.Number({ description: "What `progress` reaches at the end, when known." })),
    message: Type.Optional(Type.String()),
  },
  { $id: "Progress" },
);

/** A log message an upstream MCP server sent during the call: an SSE `log` event. */
export const LogMessage = Type.Object(
  {
    level: StringEnum(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]),
    logger: Type.Optional(Type.String({ maxLength: 256, description: "The name the server gave its logger (cut at 256 characters)." })),
    data: Type.Unknown({ description: "What the server logged: a string or any JSON." }),
  },
  { $id: "LogMessage" },
);

/**
 * One event of a call's `text/event-stream`, as a client parses it: `event` is the SSE event
 * name, `data` the JSON of its `data:` line. `progress` and `log`… then `result` or `error` last.
 */
export const StreamEvent = Type.Union(
  [
    Type.Object({ event: Type.Literal("progress"), data: Type.Ref(Progress) }),
    Type.Object({ event: Type.Literal("log"), data: Type.Ref(LogMessage) }),
    Type.Object({ event: Type.Literal("result"), data: Type.Ref(ToolResult) }),
    Type.Object({ event: Type.Literal("error"), data: Type.Ref(Problem) }),
  ],
  { $id: "StreamEvent", description: "One server-sent event of a streamed call (event name and parsed data)." },
);

/**
 * The 200 of an execute: the ToolResult as JSON, or with `Accept: text/event-stream` the
 * call's events. The stream is written by hand, so its schema only documents it.
 */
export const ExecuteOkResponse = {
  description: "The ToolResult; with `Accept: text/event-stream`, the call's events instead.",
  content: {
    "application/json": { schema: Type.Ref(ToolResult) },
    "text/event-stream": {
      schema: sseEvent(
        ["progress", "log", "result", "error"],
        "Server-sent events, each `data:` one line of JSON (parsed: StreamEvent): " +
          "`progress` (Progress) for each report, `log` (LogMessage) for each log message of an upstream MCP server, then `result` (ToolResult, isError ones too) or `error` (Problem) last. " +
          "A `: ping` comment every server.heartbeatMs. Closing the stream cancels the call.",
      ),
    },
  },
};
