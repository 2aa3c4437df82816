import { inputRequestsOf, type InputRequests } from "./requests.js";
import type { Answer, PendingRequest } from "../types.js";

// The one request id of a toolnexus pending turned elicitation.
const KEY = "input";

/** The input capabilities of a caller that can answer every input request (a REST execution's owner). */
export const EVERY_INPUT_CAPABILITY: Record<string, unknown> = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };

// The client capability each input request needs.
const CAPABILITY_OF: Record<string, string> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

/**
 * The input capabilities among a client's declared ones (elicitation, sampling, roots), as it
 * declared them: what an upstream is told the caller can answer, and nothing else it declared.
 */
export function inputCapabilitiesOf(declared: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(EVERY_INPUT_CAPABILITY).flatMap((k) => (declared[k] === undefined ? [] : [[k, declared[k]]])));
}

/** True when a client with `caps` declared the capability every one of `requests` needs. */
export function canAnswer(requests: InputRequests, caps: Record<string, unknown>): boolean {
  return Object.values(requests).every((r) => caps[CAPABILITY_OF[r.method] ?? ""] !== undefined);
}

/**
 * The input requests that ask a pending's question, or undefined when a caller with `caps`
 * (its declared client capabilities) cannot be asked it. A pending that carries
 * `data.inputRequests` (a 2026 upstream's, or a tool's own of kind elicitation, sampling or
 * roots) travels as is; a question or approval becomes a form elicitation, an `authorization`
 * with a url a URL one.
 */
export function pendingInputRequests(p: PendingRequest, caps: Record<string, unknown>): InputRequests | undefined {
  return inputRequestsOf(p) ?? elicitationOf(p, caps);
}

/** True when the pending of this kind carried its own `inputRequests`, answered as they are. */
function carriesRequests(kind: string | undefined): boolean {
  return kind === "elicitation" || kind === "sampling" || kind === "roots";
}

/**
 * The answer the responses to {@link pendingInputRequests} stand for: for requests the pending
 * carried, `data.inputResponses`; for a pending turned elicitation, accept is ok with its
 * content as the data, anything else declines.
 */
export function pendingAnswer(pendingId: string, pendingKind: string | undefined, inputResponses: Record<string, unknown>): Answer {
  if (carriesRequests(pendingKind)) return { id: pendingId, ok: true, data: { inputResponses } };
  const r = (inputResponses[KEY] ?? {}) as { action?: unknown; content?: unknown };
  if (r.action === "accept") {
    const content = r.content;
    return {
      id: pendingId,
      ok: true,
      ...(typeof content === "object" && content !== null ? { data: content as Record<string, unknown> } : {}),
    };
  }
  return { id: pendingId, ok: false, reason: typeof r.action === "string" ? r.action : "no answer" };
}

/** A question, approval or login as an elicitation the client declared it can show. */
function elicitationOf(p: PendingRequest, caps: Record<string, unknown>): InputRequests | undefined {
  const elicitation = caps.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!elicitation) return undefined;
  if ((p.kind === "authorization" || p.kind === "login") && p.url) {
    if (elicitation.url === undefined) return undefined;
    return { [KEY]: { method: "elicitation/create", params: { mode: "url", message: p.prompt, url: p.url } } };
  }
  // A client that declares elicitation with no mode supports form mode.
  if (elicitation.form === undefined && elicitation.url !== undefined) return undefined;
  return { [KEY]: { method: "elicitation/create", params: { mode: "form", message: p.prompt, requestedSchema: formSchema(p) } } };
}

/** The form of a pending: one field per question of a `question` (a choice when it has options), else none (accept or decline). */
function formSchema(p: PendingRequest): Record<string, unknown> {
  const questions = Array.isArray(p.data?.questions) ? (p.data.questions as { question?: unknown; options?: unknown }[]) : [];
  const properties: Record<string, unknown> = {};
  questions.forEach((q, i) => {
    const options = Array.isArray(q.options) ? q.options.map(String) : undefined;
    properties[`q${i + 1}`] = {
      type: "string",
      ...(typeof q.question === "string" ? { title: q.question } : {}),
      ...(options && options.length > 0 ? { enum: options } : {}),
    };
  });
  return { type: "object", properties, ...(questions.length > 0 ? { required: Object.keys(properties) } : {}) };
}
