import { createHash } from "node:crypto";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { ToolnexusError } from "../../core/errors.js";
import type { Sealer } from "../../core/seal.js";
import { ownerKey } from "../auth/index.js";
import type { CallPipeline } from "../calls/call-pipeline.js";
import { sealCallerToken } from "./engine/caller-token.js";
import {
  AnswerExecutionInputSchema,
  CancelExecutionSchema,
  ExecutionEventsSchema,
  GetExecutionSchema,
  isTerminal,
  ListExecutionsSchema,
  SubmitExecutionSchema,
} from "./schemas.js";
import type { ExecutionEvent, ExecutionStore } from "./engine/store.js";
import { awaitExecution, preferredWait, responseGone, settled } from "./long-poll.js";
import type { ServiceState } from "../service/service-state.js";
import { openSse, type SseStream } from "../calls/sse.js";

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

/** The Fastify instance the execution routes register on (TypeBox-typed). */
type App = Parameters<FastifyPluginAsyncTypebox<ExecutionRoutesOptions>>[0];

/** What every route handler shares: the options, and a signal that aborts when the service closes. */
interface RouteContext extends ExecutionRoutesOptions {
  closing: AbortSignal;
}

/**
 * Asynchronous executions: submit, poll, stream events, cancel, list. The call
 * is checked synchronously through the pipeline (404/403/429/422 at once); the store runs it.
 */
export const executionRoutes: FastifyPluginAsyncTypebox<ExecutionRoutesOptions> = async (app, options) => {
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
  const ctx: RouteContext = { ...options, closing: closing.signal };
  submitExecution(app, ctx);
  listExecutions(app, ctx);
  getExecution(app, ctx);
  cancelExecution(app, ctx);
  answerExecutionInput(app, ctx);
  streamExecutionEvents(app, ctx);
};

/** `POST /tools/{name}/executions`: checked at once through the pipeline, then queued in the store. */
function submitExecution(app: App, { store, pipeline, state, sealer }: RouteContext): void {
  const config = () => state.loaded.config.executions;
  app.post("/tools/:name/executions", { schema: SubmitExecutionSchema }, async (request, reply) => {
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
  });
}

/** `GET /executions`: the caller's own, newest first. */
function listExecutions(app: App, { store }: RouteContext): void {
  app.get("/executions", { schema: ListExecutionsSchema }, (request) => store.list(ownerKey(request.caller), request.query));
}

/** `GET /executions/{id}`, held up to `Prefer: wait=N` seconds while the execution runs. */
function getExecution(app: App, { store, closing }: RouteContext): void {
  app.get("/executions/:id", { schema: GetExecutionSchema }, async (request, reply) => {
    const owner = ownerKey(request.caller);
    // Read, not declared in the schema: a headers schema costs every GET its validation (~40 µs).
    const wait = preferredWait(String(request.headers.prefer ?? ""));
    let execution = found(await store.get(owner, request.params.id));
    // Read first: an execution that already ended costs a waiting GET no more than any other.
    if (wait > 0 && !settled(execution)) {
      execution = found(await awaitExecution(store, owner, request.params.id, wait * 1000, responseGone(reply.raw, closing)));
    }
    if (!isTerminal(execution.status)) reply.header("retry-after", RETRY_AFTER_S);
    return execution;
  });
}

/** `POST /executions/{id}/cancel`, wherever the execution runs. */
function cancelExecution(app: App, { store }: RouteContext): void {
  app.post("/executions/:id/cancel", { schema: CancelExecutionSchema }, async (request) =>
    found(await store.cancel(ownerKey(request.caller), request.params.id)),
  );
}

/** `POST /executions/{id}/input`: the caller's answers to what the execution waits on. */
function answerExecutionInput(app: App, { store }: RouteContext): void {
  app.post("/executions/:id/input", { schema: AnswerExecutionInputSchema }, async (request) =>
    found(await store.input(ownerKey(request.caller), request.params.id, request.body.inputResponses)),
  );
}

/** `GET /executions/{id}/events`: the execution, then its events as Server-Sent Events. */
function streamExecutionEvents(app: App, { store, state }: RouteContext): void {
  app.get("/executions/:id/events", { schema: ExecutionEventsSchema }, async (request, reply) => {
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
  });
}

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
