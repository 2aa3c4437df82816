import type { InputRequiredResult } from "@modelcontextprotocol/server";
import { openInputState, sealInputState, type InputDeps, type InputRequests, type InputResponses } from "../../../core/input/requests.js";
import { askedOf, checkAgainstState } from "../../../core/input/responses.js";
import { pendingOf } from "../../../core/input/pending.js";
import { pendingAnswer, pendingInputRequests } from "../../../core/input/pending-input.js";
import type { Answer, ToolResult } from "../../../core/types.js";

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
  deps: InputDeps,
): InputRequiredResult | undefined {
  const pending = pendingOf(result);
  if (!pending) return undefined;
  const inputRequests = pendingInputRequests(pending, caps) as InputRequiredResult["inputRequests"] | undefined;
  if (!inputRequests) return undefined;
  const now = Date.now();
  const parsed = pending.expiresAt ? Date.parse(pending.expiresAt) : NaN;
  const expiresAt = Number.isFinite(parsed) ? parsed : now + deps.inputTimeoutMs;
  const requestState = sealInputState(
    deps.sealer,
    {
      tool: `mcp-client:${tool}`,
      caller,
      round: 1,
      expiresAt,
      pendingId: pending.id,
      pendingKind: pending.kind,
      ...askedOf(inputRequests as InputRequests),
    },
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
  deps: InputDeps,
): Answer {
  const state = openInputState(deps.sealer, requestState, `mcp-client:${tool}`, caller);
  // Checked against what was asked before the tool (or its upstream) sees it.
  checkAgainstState(state, inputResponses as InputResponses);
  return pendingAnswer(state.pendingId ?? "", state.pendingKind, inputResponses);
}
