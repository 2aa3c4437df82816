import { createHash } from "node:crypto";
import { Type } from "../http/typebox-lite.js";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { ToolnexusError } from "../../core/errors.js";
import type { Sealer } from "../../core/seal.js";
import { ownerKey } from "../auth/index.js";
import type { CallPipeline } from "../calls/call-pipeline.js";
import { sealCallerToken } from "./engine/caller-token.js";
import {
  EventsHeaders,
  Execution,
  ExecutionList,
  ExecutionListQuery,
  ExecutionParams,
  InputBody,
  SubmitHeaders,
  isTerminal,
} from "./schemas.js";
import type { ExecutionEvent, ExecutionStore } from "./engine/store.js";
import { awaitExecution, preferredWait, responseGone, settled } from "./long-poll.js";
import { ExecuteBody, ProblemResponse as problem, sseEvent, ToolParams } from "../http/schemas.js";
import type { ServiceState } from "../service/service-state.js";
import { openSse, type SseStream } from "../calls/sse.js";

/** The Retry-After header of a non-terminal execution, in seconds. */
const RetryAfterHeader = { type: "integer", format: "int32", minimum: 0, maximum: 3600, description: "Seconds to wait before polling." };

/** Options of {@link executionRoutes}. */
export interface ExecutionRoutesOptions {
  store: ExecutionStore;
  pipeline: CallPipeline;
  state: ServiceState;
  /** Seals the caller's token into an execution of a tool that acts for the caller upstream. */
  sealer: Sealer;
}

// How soon a poller should look again while an execution is not terminal.
const RETRY_AFTER_S = "1";

/**
 * Asynchronous executions: submit, poll, stream events, cancel, list. The call
 * is checked synchronously through the pipeline (404/403/429/422 at once); the store runs it.
 */
export const executionRoutes: FastifyPluginAsyncTypebox<ExecutionRoutesOptions> = async (app, { store, pipeline, state, sealer }) => {
  const config = () => state.loaded.config.executions;
  // GETs held for `Prefer: wait` answer at once when the service closes.
  const closing = new AbortController();
  app.addHook("preClose", (done) => {
    closing.abort();
    done();
  });
  app.addHook("preValidation", (request, _reply, done) => {
    if (request.routeOptions.url === "/tools/:name/executions") request.body ??= {};
    done();
  });

  app.post(
    "/tools/:name/executions",
    {
      schema: {
        operationId: "submitExecution",
        summary: "Run one tool asynchronously",
        description:
          "Answers 202 at once with the Execution; poll `Location` or stream its events. Lookup, access, limits and arguments are checked before the 202.",
        tags: ["executions"],
        params: ToolParams,
        headers: SubmitHeaders,
        body: Type.Ref(ExecuteBody),
        response: {
          202: {
            description: "Accepted: the Execution, queued or already running",
            headers: {
              location: { type: "string", maxLength: 2048, description: "/executions/{id}" },
              "operation-location": { type: "string", maxLength: 2048, description: "The absolute URL of the execution." },
              "retry-after": RetryAfterHeader,
            },
            content: { "application/json": { schema: Type.Ref(Execution) } },
          },
          "4xx": problem,
          "5xx": problem,
        },
      },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      const prepared = pipeline.prepare(request.params.name, body, request.caller, config().maxTimeoutMs);
      pipeline.release(prepared);
      // A tool that acts for the caller upstream needs the caller's token on whichever replica
      // runs the job: it travels sealed (Redis holds ciphertext only) and expires with the token.
      const owner = ownerKey(request.caller);
      const { bearer } = request.caller;
      const callerToken =
        prepared.tool.forwardAuth && request.caller.kind === "jwt" && bearer !== undefined
          ? sealCallerToken(sealer, owner, bearer, request.caller.bearerExp, config().maxTimeoutMs)
          : undefined;
      const { execution } = await store.submit(
        {
          owner,
          ...(callerToken ? { callerToken } : {}),
          tool: prepared.tool.name,
          body,
          requestId: request.id,
          timeoutMs: prepared.timeoutMs,
          ...(request.headers["idempotency-key"] === undefined ? {} : { idempotencyKey: request.headers["idempotency-key"] }),
        },
        fingerprint(prepared.tool.name, body),
      );
      const path = `/executions/${execution.id}`;
      return reply
        .code(202)
        .headers({
          location: path,
          "operation-location": `${request.protocol}://${request.host}${path}`,
          "retry-after": RETRY_AFTER_S,
        })
        .send(execution);
    },
  );

  app.get(
    "/executions",
    {
      schema: {
        operationId: "listExecutions",
        summary: "The caller's own executions, newest first",
        tags: ["executions"],
        querystring: ExecutionListQuery,
        response: { 200: Type.Ref(ExecutionList), "4xx": problem, "5xx": problem },
      },
    },
    (request) => store.list(ownerKey(request.caller), request.query),
  );

  app.get(
    "/executions/:id",
    {
      schema: {
        operationId: "getExecution",
        summary: "One execution",
        description:
          "404 when unknown, expired or another caller's. With the request header `Prefer: wait=N` (RFC 7240) a queued or running execution is answered once it has ended or asks for input (or after N seconds, at most 30): one request instead of a poll per round trip.",
        tags: ["executions"],
        params: ExecutionParams,
        response: {
          200: {
            description: "The Execution",
            headers: {
              "retry-after": { ...RetryAfterHeader, description: "Set while queued or running: seconds to wait before polling again." },
            },
            content: { "application/json": { schema: Type.Ref(Execution) } },
          },
          "4xx": problem,
          "5xx": problem,
        },
      },
    },
    async (request, reply) => {
      const owner = ownerKey(request.caller);
      // Read, not declared in the schema: a headers schema costs every GET its validation (~40 µs).
      const wait = preferredWait(String(request.headers.prefer ?? ""));
      let execution = found(await store.get(owner, request.params.id));
      // Read first: an execution that already ended costs a waiting GET no more than any other.
      if (wait > 0 && !settled(execution)) {
        execution = found(await awaitExecution(store, owner, request.params.id, wait * 1000, responseGone(reply.raw, closing.signal)));
      }
      if (!isTerminal(execution.status)) reply.header("retry-after", RETRY_AFTER_S);
      return execution;
    },
  );

  app.post(
    "/executions/:id/cancel",
    {
      schema: {
        operationId: "cancelExecution",
        summary: "Cancel an execution wherever it runs",
        description: "A terminal execution is returned unchanged.",
        tags: ["executions"],
        params: ExecutionParams,
        response: { 200: Type.Ref(Execution), "4xx": problem, "5xx": problem },
      },
    },
    async (request) => found(await store.cancel(ownerKey(request.caller), request.params.id)),
  );

  app.post(
    "/executions/:id/input",
    {
      schema: {
        operationId: "answerExecutionInput",
        summary: "Answer what an execution waits on",
        description:
          "For an `input_required` execution: one response per key of its `inputRequests` (an ElicitResult, a CreateMessageResult, a ListRootsResult), " +
          "delivered to the call wherever it runs; the execution turns `running` again. 400 INVALID_REQUEST when it waits on nothing or the keys differ, " +
          "410 INPUT_TIMEOUT when its wait ran out.",
        tags: ["executions"],
        params: ExecutionParams,
        body: InputBody,
        response: { 200: Type.Ref(Execution), "4xx": problem, "5xx": problem },
      },
    },
    async (request) => found(await store.input(ownerKey(request.caller), request.params.id, request.body.inputResponses)),
  );

  app.get(
    "/executions/:id/events",
    {
      schema: {
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
      },
    },
    async (request, reply) => {
      const after = Number(request.headers["last-event-id"] ?? 0);
      // Events the store delivers before the stream is open (the backlog) wait here.
      const stream: { sse?: SseStream; backlog: ExecutionEvent[]; ended: boolean } = { backlog: [], ended: false };
      const deliver = (ev: ExecutionEvent) => {
        const { sse } = stream;
        if (!sse) {
          stream.backlog.push(ev);
          return;
        }
        if (stream.ended) return;
        sse.send(ev.event, ev.data, ev.id);
        if (ev.event === "result" || ev.event === "error") {
          stream.ended = true;
          watch?.stop();
          sse.close();
        }
      };
      const watch = await store.watch(ownerKey(request.caller), request.params.id, after, deliver);
      if (!watch) throw notFound();
      const sse = (stream.sse = openSse(reply, state.loaded.config.server.heartbeatMs));
      sse.onClientClose(() => watch.stop());
      sse.send("execution", watch.execution);
      for (const ev of stream.backlog) deliver(ev);
      // Terminal and its last event already seen by this client: nothing more will come.
      if (!stream.ended && isTerminal(watch.execution.status)) {
        watch.stop();
        sse.close();
      }
    },
  );
};

function found<T>(execution: T | undefined): T {
  if (!execution) throw notFound();
  return execution;
}

function notFound(): ToolnexusError {
  return new ToolnexusError("EXECUTION_NOT_FOUND", "No such execution for this caller (unknown, expired, or another caller's)");
}

/** What an Idempotency-Key is bound to: the tool and the envelope, independent of key order. */
function fingerprint(tool: string, body: unknown): string {
  return createHash("sha256").update(tool).update("\n").update(canonical(body)).digest("hex");
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}
