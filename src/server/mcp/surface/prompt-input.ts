import { ToolnexusError } from "../../../core/errors.js";
import { canAnswer } from "../../../core/input/pending-input.js";
import { asInputRequests, openInputState, sealInputState, type InputDeps, type InputResponses } from "../../../core/input/requests.js";
import { askedOf, checkAgainstState } from "../../../core/input/responses.js";
import type { PromptRetry, SurfaceItem } from "../../../core/surface/provider.js";

/**
 * A `prompts/get` whose upstream answers `input_required` (it asks the client a question
 * before it fills the prompt in), relayed the way a tool call's is: the caller gets the
 * upstream's `inputRequests` and a `requestState` the gateway sealed, and its retry carries
 * the answers. The seal binds the state to the server and its own prompt name (a reload that
 * gives the name to another server does not hand that server this one's state) and to the
 * caller, and keeps the upstream's own `requestState` (echoed byte-exact), what was asked, and
 * when the wait ends; so any replica can continue it, and a caller can neither read, alter nor
 * reuse it for another prompt or a tool.
 */

/** Which prompt a state is for: the server that owns it and the prompt's name there. */
export interface PromptTarget {
  server: string;
  prompt: string;
}

/** What a caller's retry of `prompts/get` carries. */
export interface PromptAnswer {
  requestState: string;
  inputResponses: Record<string, unknown>;
}

// A state for one prompt is foreign to every other prompt and to every tool.
function keyOf(target: PromptTarget): string {
  return `prompt:${target.server}/${target.prompt}`;
}

/**
 * The upstream retry an answer stands for, and its round, opened before anything reaches the
 * upstream: INVALID_STATE for a state not issued for this prompt and caller, INPUT_TIMEOUT when
 * late, INVALID_INPUT_RESPONSES for answers that do not fit what was asked.
 */
export function openPromptRetry(
  deps: InputDeps,
  target: PromptTarget,
  callerKey: string,
  answer: PromptAnswer,
): { retry: PromptRetry; round: number } {
  const state = openInputState(deps.sealer, answer.requestState, keyOf(target), callerKey);
  const inputResponses = checkAgainstState(state, answer.inputResponses as InputResponses);
  return {
    retry: { inputResponses, ...(state.requestState !== undefined ? { requestState: state.requestState } : {}) },
    round: state.round + 1,
  };
}

/**
 * The caller's `input_required` result for an upstream's, its `requestState` sealed by the
 * gateway; undefined when `result` is not one. `caps` are the input capabilities the caller
 * declared, undefined when it cannot be asked at all. An upstream that asks nothing (only a
 * `requestState`, after its own retries), or asks what the caller cannot answer, is an
 * UPSTREAM_ERROR: the question cannot reach anyone.
 */
export function promptInputRequired(
  deps: InputDeps,
  target: PromptTarget,
  callerKey: string,
  result: SurfaceItem,
  round: number,
  caps: Record<string, unknown> | undefined,
): SurfaceItem | undefined {
  if (result.resultType !== "input_required") return undefined;
  const name = target.prompt;
  const requests = asInputRequests(result.inputRequests);
  if (!requests) throw new ToolnexusError("UPSTREAM_ERROR", `The MCP server asked to get prompt "${name}" again later`);
  if (!caps || !canAnswer(requests, caps)) {
    const methods = [...new Set(Object.values(requests).map((r) => r.method))].join(", ");
    throw new ToolnexusError(
      "UPSTREAM_ERROR",
      `The MCP server asks for input (${methods}) to get prompt "${name}", which this ${caps ? "client did not declare it can answer" : "connection cannot carry"}: ` +
        "get it from a client that declares it, over MCP 2026-07-28, stdio or REST",
    );
  }
  const now = Date.now();
  const requestState = sealInputState(
    deps.sealer,
    {
      tool: keyOf(target),
      caller: callerKey,
      ...(typeof result.requestState === "string" ? { requestState: result.requestState } : {}),
      round,
      expiresAt: now + deps.inputTimeoutMs,
      ...askedOf(requests),
    },
    now,
  );
  return { resultType: "input_required", inputRequests: requests, requestState };
}
