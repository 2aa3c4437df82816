import { Type, type FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { CallPipeline } from "../call-pipeline.js";
import { abortOnDisconnect } from "../disconnect.js";
import { ExecuteBody, ProblemResponse as problem, ToolParams, ToolResult } from "../schemas.js";

/** `POST /tools/{name}/execute`: the synchronous transport of the call pipeline. */
export const executeRoute: FastifyPluginAsyncTypebox<{ pipeline: CallPipeline }> = async (app, { pipeline }) => {
  // `curl -X POST` with no body is a call with no arguments, not a malformed request; a JSON
  // `null` body is sent, and fails the envelope.
  app.addHook("preValidation", (request, _reply, done) => {
    if (request.body === undefined) request.body = {};
    done();
  });

  app.post("/tools/:name/execute", {
    schema: {
      operationId: "executeTool",
      summary: "Run one tool",
      description: "An isError result is still 200: it is an outcome the model reads. A tool that fails answers 500 TOOL_FAILED.",
      tags: ["tools"],
      params: ToolParams,
      body: Type.Ref(ExecuteBody),
      response: { 200: Type.Ref(ToolResult), "4xx": problem, "5xx": problem },
    },
  }, (request, reply) => pipeline.call(request.params.name, request.body ?? {}, {
    caller: request.caller,
    requestId: request.id,
    transport: "rest",
    log: request.log,
    onStart: (call) => abortOnDisconnect(reply, call),
    onEnd: (ms) => reply.header("server-timing", `tool;dur=${ms.toFixed(1)}`),
  }));
};
