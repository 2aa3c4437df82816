import { ToolnexusError } from "../errors.js";
import { pending } from "./pending.js";
import { invalidState, SEAL_PURPOSES, type Sealer } from "../seal.js";
import type { Answer, PendingRequest, ToolResult } from "../types.js";

/**
 * Input requests as MCP 2026-07-28 carries them (an `input_required` result): the server's
 * questions to the client, keyed by a server-chosen id. A request is the bare
 * `{ method, params }` of the demoted client request; a response is the bare result
 * (an ElicitResult, a CreateMessageResult, a ListRootsResult), keyed by the same id.
 */
export type InputRequest =
  | { method: "elicitation/create"; params: Record<string, unknown> }
  | { method: "sampling/createMessage"; params: Record<string, unknown> }
  | { method: "roots/list"; params?: Record<string, unknown> };

/** The `inputRequests` map of an `input_required` result. */
export type InputRequests = Record<string, InputRequest>;

/** The `inputResponses` map of the retry: each value is the bare result answering one request. */
export type InputResponses = Record<string, Record<string, unknown>>;

/**
 * The one key of a response that is a client's JSON-RPC reply passed on verbatim
 * (`{ result }` or `{ error: { code, message, data? } }`): a 2025 `/mcp` client's answer to a
 * relayed request. The upstream that asked gets exactly that result or error, and checks it
 * itself, as it would from a client of its own.
 */
export const INPUT_REPLY_KEY = "toolnexus/reply";

/** The pending kinds an input request maps to (a tool's own kinds, e.g. `question`, stay as they are). */
type InputKind = "elicitation" | "sampling" | "roots";

const KIND_OF_METHOD: Record<InputRequest["method"], InputKind> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

/** True for a method name of an input request (elicitation, sampling, roots). */
function isInputMethod(method: unknown): method is InputRequest["method"] {
  return typeof method === "string" && Object.hasOwn(KIND_OF_METHOD, method);
}

/** The `inputRequests` of a wire value, or undefined when it is not a non-empty map of input requests. */
export function asInputRequests(v: unknown): InputRequests | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const entries = Object.entries(v);
  if (entries.length === 0) return undefined;
  for (const [, r] of entries) {
    if (typeof r !== "object" || r === null || !isInputMethod((r as { method?: unknown }).method)) return undefined;
  }
  return v as InputRequests;
}

/**
 * The pending kind of a set of requests: the kind of the first one. Several kinds at once
 * (an elicitation and a roots request) still answer in one round; `data.inputRequests` says which.
 */
function inputKindOf(requests: InputRequests): InputKind {
  const first = Object.values(requests)[0];
  return first ? KIND_OF_METHOD[first.method] : "elicitation";
}

/** A one-line human prompt for the requests: the elicitation messages, or what is asked for. */
function describeInputRequests(requests: InputRequests): string {
  return Object.values(requests)
    .map((r) => {
      if (r.method === "elicitation/create" && typeof r.params.message === "string") return r.params.message;
      if (r.method === "sampling/createMessage") return "A model completion is requested";
      if (r.method === "roots/list") return "The client's roots are requested";
      return "Input is requested";
    })
    .join("\n");
}

/**
 * The REST suspension for input requests: `metadata.pending = { id, kind, prompt,
 * data: { inputRequests }, expiresAt }`. `id` is what a retry needs, sealed by the caller of this.
 */
export function inputRequired(id: string, requests: InputRequests, expiresAt: number): ToolResult {
  return pending({
    id,
    kind: inputKindOf(requests),
    prompt: describeInputRequests(requests),
    data: { inputRequests: requests },
    expiresAt: new Date(expiresAt).toISOString(),
  });
}

/** The input requests a pending carries in `data.inputRequests`, or undefined (e.g. a `question`). */
export function inputRequestsOf(p: PendingRequest): InputRequests | undefined {
  return asInputRequests(p.data?.inputRequests);
}

/**
 * The `inputResponses` of an answer (`answer.data.inputResponses`), or INVALID_REQUEST when
 * the answer accepts but carries no map. A declined answer (`ok: false`) gives an empty map.
 */
export function inputResponsesOf(answer: Answer): InputResponses {
  if (!answer.ok) return {};
  const r = answer.data?.inputResponses;
  if (typeof r !== "object" || r === null || Array.isArray(r)) {
    throw new ToolnexusError("INVALID_REQUEST", "answer.data.inputResponses must be an object keyed by the input request ids", {
      errors: [{ pointer: "/answer/data/inputResponses", message: "must be an object" }],
    });
  }
  for (const [key, value] of Object.entries(r)) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new ToolnexusError("INVALID_REQUEST", `inputResponses.${key} must be an object`, {
        errors: [{ pointer: `/answer/data/inputResponses/${key}`, message: "must be an object" }],
      });
    }
  }
  return r as InputResponses;
}

/**
 * What a stateless retry needs, sealed into the pending id (REST) or the `requestState`
 * handed to an `/mcp` client: the tool it belongs to, the caller it was issued to, the
 * upstream's own opaque state, the round, and when the wait ends.
 */
export interface InputState {
  /** The tool name the state was issued for: a state for another tool is foreign. */
  tool: string;
  /** The caller it was issued to: its kind and id (`apiKey:<id>`, `jwt:<sub>`), so one kind never opens another's. */
  caller?: string;
  /** The upstream's `requestState`, echoed byte-exact on the retry. */
  requestState?: string;
  /** 1 for the first input request of a call, +1 per further round. */
  round: number;
  /** Epoch ms after which an answer is INPUT_TIMEOUT. */
  expiresAt: number;
  /** What was asked, by request id: the method of each (so a declined answer can decline each). */
  asked?: Record<string, string>;
  /** The `requestedSchema` of each form elicitation asked, by request id: what an accepted answer must fit. */
  forms?: Record<string, unknown>;
  /** The upstream task that waits for this answer (the 2026 tasks extension): answered by `tasks/update`. */
  taskId?: string;
  /** The id of a toolnexus tool's own pending, when the state wraps one (on `/mcp`). */
  pendingId?: string;
  /** That pending's kind. */
  pendingKind?: string;
  /** The execution (an `/mcp` task not yet handed out) that waits on the answer. */
  execution?: string;
  /** The id of that execution's `input_required` event: what came after it is the answer's outcome. */
  after?: number;
}

const PURPOSE = SEAL_PURPOSES.inputRequest;

/**
 * Seals `state` for a caller. The seal outlives `expiresAt` by a margin so that a late answer
 * is told INPUT_TIMEOUT rather than INVALID_STATE; long after, the seal itself refuses it.
 */
export function sealInputState(sealer: Sealer, state: InputState, now: number = Date.now()): string {
  const margin = Math.max(state.expiresAt - now, 0) + 60 * 60 * 1000;
  return sealer.seal(PURPOSE, state, margin);
}

/**
 * Opens a sealed input state for `tool` and `caller`: INVALID_STATE when altered, foreign,
 * for another tool or another caller; INPUT_TIMEOUT once its wait is over.
 */
export function openInputState(
  sealer: Sealer,
  token: string,
  tool: string,
  caller: string | undefined,
  now: number = Date.now(),
): InputState {
  const state = sealer.open<InputState>(PURPOSE, token);
  if (state.tool !== tool || state.caller !== caller) {
    // The same message as a forged state: nothing is revealed about whose state it was.
    throw invalidState();
  }
  if (now > state.expiresAt) throw new ToolnexusError("INPUT_TIMEOUT", "The input request has expired; call the tool again");
  return state;
}

/**
 * What every side of an input request needs from the service: the sealer of its states and how
 * long an answer may take. One interface for the MCP source, `/mcp`'s input-required results
 * and a task's input round.
 */
export interface InputDeps {
  sealer: Sealer;
  inputTimeoutMs: number;
}
