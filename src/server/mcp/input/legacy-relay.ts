import { INPUT_REPLY_KEY, type InputRequests, type InputResponses } from "../../../core/input/requests.js";
import { ToolnexusError } from "../../../core/errors.js";
import { invalidState, SEAL_PURPOSES, type Sealer } from "../../../core/seal.js";
import { pendingOf } from "../../../core/input/pending.js";
import { pendingAnswer, pendingInputRequests } from "../../../core/input/pending-input.js";
import type { Answer, ToolResult } from "../../../core/types.js";
import { ownerKey, type Caller } from "../../auth/index.js";
import type { CallSignal } from "../../calls/call-signal.js";
import { PromotableCall, type Promotion } from "../../calls/promotable-call.js";
import type { ExecutionStore } from "../../executions/engine/store.js";

// Purposes bound into the sealed tokens: a session memo never opens as a reply id, nor the reverse.
const SESSION = SEAL_PURPOSES.relaySession;
const REPLY = SEAL_PURPOSES.relayReply;
// The session memo holds only what the client declared; it outlives any sensible connection.
const SESSION_TTL_MS = 7 * 24 * 3_600_000;

/** The methods a 2025 client declared it answers (from its `initialize`). */
export type RelayCapabilities = ReadonlySet<string>;

/** One 2025 `tools/call` that may relay questions: where they go out and what the client answers. */
export interface RelaySink {
  capabilities: RelayCapabilities;
  /** Writes a JSON-RPC request on the call's own SSE stream. */
  send(message: Record<string, unknown>): Promise<void>;
}

/** The hooks a relayed call gives the pipeline. */
export interface RelayedCall {
  bind(call: CallSignal): void;
  ask(requests: InputRequests): Promise<InputResponses>;
  /** Hands the call's end to its execution (when it was promoted). */
  track(run: Promise<ToolResult>): void;
  /**
   * A result that is a pending the client can answer (a 2026 upstream's `input_required`, a
   * native tool's pending): its requests go out on the stream like a mid-call question, and
   * the tool is called `again` with the answers, round after round. Any other result as is.
   */
  answerPendings(result: ToolResult, again: (answer: Answer) => Promise<ToolResult>): Promise<ToolResult>;
}

// The capability each relayed method needs, as a pending's requests are built from capabilities.
const CAPABILITY_OF: Record<string, string> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

type Sealed = { o: string; e: string; k: string };

/**
 * Server-to-client requests for 2025-era clients of the stateless `/mcp`. The client's
 * capabilities were sent in its `initialize`, another POST: they come back on every request
 * in the `Mcp-Session-Id` the initialize answer gave, a sealed memo (owner and capabilities;
 * no state is kept, any replica opens it). A call whose upstream asks mid-call is promoted to
 * an execution (as a REST call is), and each question goes out on the call's stream with a
 * JSON-RPC id that is sealed too (owner, execution, request key; it expires with
 * `inputTimeoutMs`): the reply, a POST of its own to any replica, is delivered through the
 * executions' input path (over Redis to the replica that holds the call).
 */
export class LegacyRelay {
  constructor(
    private readonly sealer: Sealer,
    private readonly store: ExecutionStore,
    private readonly promotion: Promotion,
    private readonly inputTimeoutMs: () => number,
  ) {}

  /** The `Mcp-Session-Id` of an `initialize` whose client can answer a relayed request (none otherwise). */
  sessionId(caller: Caller, params: unknown): string | undefined {
    const caps = (params as { capabilities?: Record<string, unknown> } | undefined)?.capabilities ?? {};
    const methods = [
      ...(isObject(caps.elicitation) ? ["elicitation/create"] : []),
      ...(isObject(caps.sampling) ? ["sampling/createMessage"] : []),
      // Only a pending's roots/list is relayed (2025 upstreams are not offered roots).
      ...(isObject(caps.roots) ? ["roots/list"] : []),
    ];
    return methods.length ? this.sealer.seal(SESSION, { o: ownerKey(caller), m: methods }, SESSION_TTL_MS) : undefined;
  }

  /** What the session memo says the client answers; none for a foreign, altered, expired or another caller's memo. */
  capabilities(caller: Caller, sessionId: string | null): RelayCapabilities | undefined {
    if (!sessionId) return undefined;
    try {
      const { o, m } = this.sealer.open<{ o: string; m: string[] }>(SESSION, sessionId);
      return o === ownerKey(caller) ? new Set(m) : undefined;
    } catch {
      return undefined;
    }
  }

  /** A call of `caller` whose questions go to `sink`; one the client cannot answer is refused to the upstream at once. */
  call(caller: Caller, tool: string, requestId: string, sink: RelaySink): RelayedCall {
    const held = new PromotableCall(this.promotion, caller, tool, requestId);
    const owner = ownerKey(caller);
    // Sent once the execution waits (an answer is taken): a fast reply never finds it not waiting.
    held.onAsked = (promoted, requests) => {
      for (const [key, { method, params }] of Object.entries(requests)) {
        const id = this.sealer.seal(REPLY, { o: owner, e: promoted.execution.id, k: key } satisfies Sealed, this.inputTimeoutMs());
        void sink.send({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }).catch(() => undefined);
      }
    };
    const caps = Object.fromEntries([...sink.capabilities].flatMap((m) => (CAPABILITY_OF[m] ? [[CAPABILITY_OF[m], {}]] : [])));
    return {
      answerPendings: async (first, again) => {
        for (let result = first; ;) {
          const pending = pendingOf(result);
          const requests = pending ? pendingInputRequests(pending, caps) : undefined;
          if (!pending || !requests || !Object.values(requests).every((r) => sink.capabilities.has(r.method))) return result;
          const replies = await held.ask(requests);
          const responses: Record<string, unknown> = {};
          for (const [key, reply] of Object.entries(replies)) {
            const r = reply[INPUT_REPLY_KEY] as { result?: unknown; error?: unknown } | undefined;
            // A refusal leaves the pending for the caller to see, as a client without the capability does.
            if (!r || "error" in r) return result;
            responses[key] = r.result;
          }
          result = await again(pendingAnswer(pending.id, pending.kind, responses));
        }
      },
      bind: (call) => held.bind(call),
      ask: (requests) => {
        const unanswerable = Object.entries(requests).filter(([, r]) => !sink.capabilities.has(r.method));
        if (unanswerable.length === 0) return held.ask(requests);
        const refused = {
          [INPUT_REPLY_KEY]: { error: { code: -32601, message: "Method not found: the client did not declare this capability" } },
        };
        return Promise.resolve(Object.fromEntries(Object.keys(requests).map((k) => [k, refused])));
      },
      track: (run) =>
        void run.then(
          (result) => held.end({ result }),
          (error: unknown) => held.end({ error }),
        ),
    };
  }

  /**
   * A POST whose body is a JSON-RPC response with a string id: the client's reply to a relayed
   * request, delivered to the execution it names. INVALID_STATE for an id this gateway did not
   * seal for this caller (nothing is delivered); the executions' errors otherwise (not waiting,
   * timed out).
   */
  async deliver(caller: Caller, message: { id: string; result?: unknown; error?: unknown }): Promise<void> {
    const { o, e, k } = this.sealer.open<Sealed>(REPLY, message.id);
    // Another caller's id is refused as a forged one: nothing tells it apart.
    if (o !== ownerKey(caller)) throw invalidState();
    // Passed on verbatim: the upstream that asked checks the result, as it would from a client of its own.
    const response = { [INPUT_REPLY_KEY]: "error" in message ? { error: message.error } : { result: message.result } };
    // Partial: a round of several requests is answered by one reply each.
    const delivered = await this.store.input(o, e, { [k]: response }, true);
    if (!delivered) throw new ToolnexusError("EXECUTION_NOT_FOUND", "The call this reply answers has ended");
  }
}

/** A JSON-RPC response (no method) with a string id: what a relayed request's reply looks like. */
export function isRelayReply(body: Record<string, unknown>): body is { id: string; result?: unknown; error?: unknown } {
  return body.method === undefined && typeof body.id === "string" && ("result" in body || "error" in body);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
