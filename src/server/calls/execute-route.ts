import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { CallPipeline } from "./call-pipeline.js";
import { abortOnDisconnect } from "./disconnect.js";
import { strayKeysError } from "./envelope.js";
import { ExecuteBody, ExecuteOkResponse, ProblemResponse as problem, ToolParams } from "../http/schemas.js";
import { streamCall, wantsEventStream, type StreamSettings } from "./stream-call.js";

/** `POST /tools/{name}/execute`: the synchronous and the streaming (SSE) transports of the call pipeline. */
export const executeRoute: FastifyPluginAsyncTypebox<{ pipeline: CallPipeline; stream: StreamSettings }> = async (
  app,
  { pipeline, stream },
) => {
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
          "argument validation (failures before that keep their status); later failures are its last `error` event.",
        tags: ["tools"],
        params: ToolParams,
        body: Type.Ref(ExecuteBody),
        response: { 200: ExecuteOkResponse, "4xx": problem, "5xx": problem },
      },
    },
    (request, reply) => {
      const { name } = request.params;
      const body = request.body ?? {};
      const { caller, id: requestId, log } = request;
      if (wantsEventStream(request.headers.accept)) return streamCall(pipeline, reply, name, body, { caller, requestId, log }, stream);
      // One literal, not a spread of a shared `base`: with the spread, ~0.4 KB of every call
      // was promoted to the old generation (bench/README.md, execute pipeline).
      return pipeline.call(name, body, {
        caller,
        requestId,
        log,
        transport: "rest",
        onStart: (call) => abortOnDisconnect(reply, call),
        onEnd: (ms) => reply.header("server-timing", `tool;dur=${ms.toFixed(1)}`),
      });
    },
  );
};
