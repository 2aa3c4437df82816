import type { InputRequiredResult } from "@modelcontextprotocol/server";
import { inputRequestsOf, openInputState, sealInputState } from "../../core/input-requests.js";
import { pendingOf } from "../../core/pending.js";
import type { Sealer } from "../../core/seal.js";
import type { Answer, PendingRequest, ToolResult } from "../../core/types.js";

/** What turns pendings into `input_required` results and back: the service's sealer and wait. */
export interface McpInputDeps {
  sealer: Sealer;
  inputTimeoutMs: number;
}

// The one request id of a toolnexus pending turned elicitation.
const KEY = "input";

/**
 * A tool's pending as a 2026 `input_required` result, or undefined when the client cannot
 * answer it (it did not declare the capability; the caller then gets the pending as an
 * isError result, as a 2025 client does). A pending that carries `data.inputRequests` (a 2026
 * upstream's, or a tool's own of kind elicitation, sampling or roots) travels as is; a
 * question or approval becomes a form elicitation, an `authorization` with a url a URL one.
 * `requestState` seals the pending's id and kind, bound to the tool and caller.
 */
export function toInputRequired(
  result: ToolResult,
  tool: string,
  caller: string,
  caps: Record<string, unknown>,
  deps: McpInputDeps,
): InputRequiredResult | undefined {
  const pending = pendingOf(result);
  if (!pending) return undefined;
  const inputRequests = inputRequestsOf(pending) ?? elicitationOf(pending, caps);
  if (!inputRequests) return undefined;
  const now = Date.now();
  const parsed = pending.expiresAt ? Date.parse(pending.expiresAt) : NaN;
  const expiresAt = Number.isFinite(parsed) ? parsed : now + deps.inputTimeoutMs;
  const requestState = sealInputState(
    deps.sealer,
    { tool: `mcp-client:${tool}`, caller, round: 1, expiresAt, pendingId: pending.id, pendingKind: pending.kind },
    now,
  );
  return { resultType: "input_required", inputRequests, requestState } as InputRequiredResult;
}

/**
 * The answer a retry's `requestState` and `inputResponses` stand for: INVALID_STATE when the
 * state is not one this gateway issued for this tool and caller, INPUT_TIMEOUT when late.
 */
export function answerOf(
  requestState: string,
  inputResponses: Record<string, unknown>,
  tool: string,
  caller: string,
  deps: McpInputDeps,
): Answer {
  const state = openInputState(deps.sealer, requestState, `mcp-client:${tool}`, caller);
  const id = state.pendingId ?? "";
  if (state.pendingKind === "elicitation" || state.pendingKind === "sampling" || state.pendingKind === "roots") {
    return { id, ok: true, data: { inputResponses } };
  }
  // A toolnexus pending answered through its elicitation: accept is ok, its content the data.
  const r = (inputResponses[KEY] ?? {}) as { action?: unknown; content?: unknown };
  if (r.action === "accept") {
    const content = r.content;
    return { id, ok: true, ...(typeof content === "object" && content !== null ? { data: content as Record<string, unknown> } : {}) };
  }
  return { id, ok: false, reason: typeof r.action === "string" ? r.action : "no answer" };
}

/** A question, approval or login as an elicitation the client declared it can show. */
function elicitationOf(p: PendingRequest, caps: Record<string, unknown>): InputRequiredResult["inputRequests"] | undefined {
  const elicitation = caps.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!elicitation) return undefined;
  if (p.kind === "authorization" && p.url) {
    if (elicitation.url === undefined) return undefined;
    return {
      [KEY]: { method: "elicitation/create", params: { mode: "url", message: p.prompt, url: p.url } },
    } as unknown as InputRequiredResult["inputRequests"];
  }
  // A client that declares elicitation with no mode supports form mode.
  if (elicitation.form === undefined && elicitation.url !== undefined) return undefined;
  return {
    [KEY]: { method: "elicitation/create", params: { mode: "form", message: p.prompt, requestedSchema: formSchema(p) } },
  } as unknown as InputRequiredResult["inputRequests"];
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
