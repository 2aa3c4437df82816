import { Type } from "../http/typebox-lite.js";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { CallPipeline } from "./call-pipeline.js";
import { abortOnDisconnect } from "./disconnect.js";
import { strayKeysError, type CallEnvelope } from "./envelope.js";
import { ProblemResponse as problem } from "../http/schemas/common.js";
import { ToolParams } from "../http/schemas/catalog.js";
import { ExecuteBody, ExecuteOkResponse, ToolResult as ToolResultSchema } from "../http/schemas/calls.js";
import { PromotableCall, type Promotion } from "./promotable-call.js";
import type { CallSignal } from "./call-signal.js";
import type { InputRequests } from "../../core/input/requests.js";
import type { FastifyReply, FastifyRequest } from "fastify";
import { streamCall, wantsEventStream, type StreamSettings } from "./stream-call.js";

/** `POST /tools/{name}/execute`: the synchronous and the streaming (SSE) transports of the call pipeline. */
export const executeRoute: FastifyPluginAsyncTypebox<
  StreamSettings & { pipeline: CallPipeline; executions?: { promotion: Promotion } }
> = async (app, { pipeline, heartbeatMs, scrub, executions }) => {
  const stream: StreamSettings = { heartbeatMs, scrub };
  const promotion = executions?.promotion;
  // `curl -X POST` with no body is a call with no arguments, not a malformed request; a JSON
  // `null` body is sent, and fails the envelope.
  app.addHook("preValidation", (request, _reply, done) => {
    if (request.body === undefined) request.body = {};
    done(strayKeysError(request.body));
  });

  app.post(
    "/tools/:name/execute",
    {
      schema: {
        operationId: "executeTool",
        summary: "Run one tool",
        description:
          "An isError result is still 200: it is an outcome the model reads. A tool that fails answers 500 TOOL_FAILED. " +
          "With `Accept: text/event-stream` the 200 is an event stream, started once the call passed lookup, auth, limits and " +
          "argument validation (failures before that keep their status); later failures are its last `error` event. " +
          "A call whose upstream asks its caller mid-call (elicitation, sampling, roots) is promoted to an execution so it is never lost: " +
          "JSON answers 202 with the Execution (`input_required`, see getExecution) and `Location`; the stream sends `execution`, then `input_required`, and goes on. " +
          "Answer with POST /executions/{id}/input.",
        tags: ["tools"],
        params: ToolParams,
        body: Type.Ref(ExecuteBody),
        // The per-tool operations keep the 202 only for MCP tools, the only ones an upstream can
        // promote (tool-openapi.ts): a native tool's typed client reads a plain ToolResult.
        response: {
          // One schema, not one per media type (the document has both: swaggerTransform below).
          // With a map, Fastify parsed every reply's content type and looked the serializer up
          // by a key it made per reply: ~2 k instructions of every call
          // (bench/history/2026-12-07-execute-path.md). The stream is written by hand.
          200: Type.Ref(ToolResultSchema),
          202: {
            description: "Promoted: the upstream asked mid-call; the Execution waits on its inputRequests",
            headers: {
              location: { type: "string", maxLength: 2048, description: "/executions/{id}" },
              "operation-location": { type: "string", maxLength: 2048, description: "The absolute URL of the execution." },
            },
            content: { "application/json": { schema: Type.Ref("Execution") } },
          },
          "4xx": problem,
          "5xx": problem,
        },
      },
      config: {
        // Each call writes its "tool call" line, refused ones too (call-record.ts).
        ownLine: true,
        swaggerTransform: ({ schema, url }) => ({
          schema: { ...schema, response: { ...(schema.response as object), 200: ExecuteOkResponse } },
          url,
        }),
      },
    },
    (request, reply) => {
      const { name } = request.params;
      const body = request.body ?? {};
      if (wantsEventStream(request.headers.accept)) {
        const { caller, id: requestId, log } = request;
        const held = promotion && new PromotableCall(promotion, caller, name, requestId);
        return streamCall(pipeline, reply, name, body, { caller, requestId, log }, stream, held);
      }
      if (promotion) promotableCall(pipeline, promotion, request, reply, name, body);
      else plainCall(pipeline, request, reply, name, body);
      // Answered through the reply (`answer`), not a returned promise.
      return undefined;
    },
  );
};

/**
 * Sends a call's result or its error, as Fastify sends what a handler's promise settles with:
 * sending it here spares every call that promise, its resolution (which looks a `then` up on
 * the result) and Fastify's two callbacks on it (bench/history/2026-12-07-execute-path.md).
 */
function answer(reply: FastifyReply, outcome: unknown): void {
  try {
    reply.send(outcome);
  } catch (err) {
    reply.send(asError(err));
  }
}

/** Sends what a call was rejected with, as its problem. */
function answerError(reply: FastifyReply, error: unknown): void {
  answer(reply, asError(error));
}

// Fastify answers an Error with the error handler's problem, anything else as a payload.
const asError = (thrown: unknown): Error => (thrown instanceof Error ? thrown : new Error(String(thrown)));

/** The `server-timing` header of a call that ended before its response was sent. */
function serverTiming(reply: FastifyReply): (ms: number) => void {
  return (ms) => {
    if (!reply.sent) reply.header("server-timing", `tool;dur=${oneDecimal(ms)}`);
  };
}

/**
 * A duration with one decimal, as `toFixed(1)` writes it, made of two integers: on every call
 * `toFixed` (a runtime builtin) cost ~100 ns in process and ~1 µs in a server profile; this ~20.
 */
function oneDecimal(ms: number): string {
  const tenths = Math.round(ms * 10);
  return `${(tenths - (tenths % 10)) / 10}.${tenths % 10}`;
}

/** A JSON call when no execution store can take a call over: the pipeline's result as it is. */
function plainCall(pipeline: CallPipeline, request: FastifyRequest, reply: FastifyReply, name: string, body: CallEnvelope): void {
  const { caller, id: requestId, log } = request;
  // One literal, not a spread of a shared `base`: with the spread, ~0.4 KB of every call
  // was promoted to the old generation (bench/history/2026-12-notebook.md, "The execute pipeline and its tail").
  pipeline
    .call(name, body, {
      caller,
      requestId,
      log,
      transport: "rest",
      onStart: (call) => abortOnDisconnect(reply, call),
      onEnd: serverTiming(reply),
    })
    .then(
      (result) => answer(reply, result),
      (error: unknown) => answerError(reply, error),
    );
}

/**
 * A JSON call that is promoted to an execution if its tool asks the caller mid-call: it
 * answers with the result, or with 202 and the execution once the first question is recorded,
 * whichever comes first. The held call is made at the first question, not per call: most calls
 * never ask, and a held call, its promises and a race per call were a measurable share of a
 * fast call's cost (bench/history/2026-12-06-execute-path.md).
 */
function promotableCall(
  pipeline: CallPipeline,
  promotion: Promotion,
  request: FastifyRequest,
  reply: FastifyReply,
  name: string,
  body: CallEnvelope,
): void {
  const { caller, id: requestId, log } = request;
  let answered = false;
  let held: PromotableCall | undefined;
  let started: CallSignal | undefined;
  const hold = (): PromotableCall => {
    const h = new PromotableCall(promotion, caller, name, requestId);
    if (started) h.bind(started);
    void h.promoted.then(({ promoted, requests }) => {
      if (answered) return;
      answered = true;
      const path = `/executions/${promoted.execution.id}`;
      reply.code(202).headers({ location: path, "operation-location": `${request.protocol}://${request.host}${path}` });
      answer(reply, { ...promoted.execution, status: "input_required", inputRequests: requests });
    });
    return h;
  };
  const run = pipeline.call(name, body, {
    caller,
    requestId,
    log,
    transport: "rest",
    onStart: (call) => {
      started = call;
      held?.bind(call);
      abortOnDisconnect(reply, call);
    },
    onInputRequest: (requests: InputRequests) => (held ??= hold()).ask(requests),
    onEnd: serverTiming(reply),
  });
  // A promoted call's end goes to its execution (a no-op when the store did not adopt it).
  run.then(
    (result) => {
      held?.end({ result });
      if (answered) return;
      answered = true;
      answer(reply, result);
    },
    (error: unknown) => {
      held?.end({ error });
      if (answered) return;
      answered = true;
      answerError(reply, error);
    },
  );
}
