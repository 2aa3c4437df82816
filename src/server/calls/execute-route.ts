import { Type } from "../http/typebox-lite.js";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { CallPipeline } from "./call-pipeline.js";
import { abortOnDisconnect } from "./disconnect.js";
import { strayKeysError } from "./envelope.js";
import { ExecuteBody, ExecuteOkResponse, ProblemResponse as problem, ToolParams } from "../http/schemas.js";
import { PromotableCall, type Promotion } from "./promotable-call.js";
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
          200: ExecuteOkResponse,
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
    },
    async (request, reply) => {
      const { name } = request.params;
      const body = request.body ?? {};
      const { caller, id: requestId, log } = request;
      const held = promotion && new PromotableCall(promotion, caller, name, requestId);
      if (wantsEventStream(request.headers.accept))
        return streamCall(pipeline, reply, name, body, { caller, requestId, log }, stream, held);
      // One literal, not a spread of a shared `base`: with the spread, ~0.4 KB of every call
      // was promoted to the old generation (bench/history/2026-12-notebook.md, "The execute pipeline and its tail").
      const run = pipeline.call(name, body, {
        caller,
        requestId,
        log,
        transport: "rest",
        onStart: (call) => {
          held?.bind(call);
          abortOnDisconnect(reply, call);
        },
        ...(held ? { onInputRequest: held.ask } : {}),
        onEnd: (ms) => {
          if (!reply.sent) reply.header("server-timing", `tool;dur=${ms.toFixed(1)}`);
        },
      });
      if (!held) return run;
      void run.then(
        (result) => held.end({ result }),
        (error: unknown) => held.end({ error }),
      );
      const first = await Promise.race([run.then(() => undefined), held.promoted]);
      if (!first) return run;
      const { promoted, requests } = first;
      const path = `/executions/${promoted.execution.id}`;
      return reply
        .code(202)
        .headers({ location: path, "operation-location": `${request.protocol}://${request.host}${path}` })
        .send({ ...promoted.execution, status: "input_required", inputRequests: requests });
    },
  );
};
