import { ToolnexusError } from "../../../core/errors.js";
import { asInputRequests, openInputState, sealInputState, type InputDeps, type InputResponses } from "../../../core/input/requests.js";
import { checkAgainstState, formsOf } from "../../../core/input/responses.js";
import type { PromptRetry, SurfaceItem } from "../../../core/surface/provider.js";

/**
 * A `prompts/get` whose upstream answers `input_required` (it asks the client a question
 * before it fills the prompt in), relayed the way a tool call's is: the caller gets the
 * upstream's `inputRequests` and a `requestState` the gateway sealed, and its retry carries
 * the answers. The seal binds the state to the prompt's name and the caller, and keeps the
 * upstream's own `requestState` (echoed byte-exact), what was asked, and when the wait ends;
 * so any replica can continue it, and a caller can neither read, alter nor reuse it for
 * another prompt.
 */

/** What a caller's retry of `prompts/get` carries. */
export interface PromptAnswer {
  requestState: string;
  inputResponses: Record<string, unknown>;
}

// A state for one prompt is foreign to every other prompt and to every tool.
function keyOf(prompt: string): string {
  return `prompt:${prompt}`;
}

/**
 * The upstream retry an answer stands for, opened before anything reaches the upstream:
 * INVALID_STATE for a state not issued for this prompt and caller, INPUT_TIMEOUT when late,
 * INVALID_INPUT_RESPONSES for answers that do not fit what was asked.
 */
export function openPromptRetry(deps: InputDeps, prompt: string, caller: string, answer: PromptAnswer): PromptRetry {
  const state = openInputState(deps.sealer, answer.requestState, keyOf(prompt), caller);
  const inputResponses = checkAgainstState(state, answer.inputResponses as InputResponses);
  return { round: state.round + 1, inputResponses, ...(state.requestState !== undefined ? { requestState: state.requestState } : {}) };
}

/**
 * The caller's `input_required` result for an upstream's, its `requestState` sealed by the
 * gateway; undefined when `result` is not one. An upstream that asks nothing (only a
 * `requestState`, after its own retries) or that asks a caller who cannot be asked is an
 * UPSTREAM_ERROR: the question cannot reach anyone.
 */
export function promptInputRequired(
  deps: InputDeps,
  prompt: string,
  caller: string,
  result: SurfaceItem,
  round: number,
  answerable: boolean,
): SurfaceItem | undefined {
  if (result.resultType !== "input_required") return undefined;
  const requests = asInputRequests(result.inputRequests);
  if (!requests) throw new ToolnexusError("UPSTREAM_ERROR", `The MCP server asked to get prompt "${prompt}" again later`);
  if (!answerable) {
    const methods = [...new Set(Object.values(requests).map((r) => r.method))].join(", ");
    throw new ToolnexusError(
      "UPSTREAM_ERROR",
      `The MCP server asks for input (${methods}) to get prompt "${prompt}", which this connection cannot carry: ` +
        "get it over MCP 2026-07-28, stdio or REST",
    );
  }
  const now = Date.now();
  const forms = formsOf(requests);
  const requestState = sealInputState(
    deps.sealer,
    {
      tool: keyOf(prompt),
      caller,
      ...(typeof result.requestState === "string" ? { requestState: result.requestState } : {}),
      round,
      expiresAt: now + deps.inputTimeoutMs,
      asked: Object.fromEntries(Object.entries(requests).map(([k, r]) => [k, r.method])),
      ...(forms ? { forms } : {}),
    },
    now,
  );
  return { resultType: "input_required", inputRequests: requests, requestState };
}
