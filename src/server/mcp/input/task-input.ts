import { CLIENT_CAPABILITIES_META_KEY, type InputRequiredResult, type ServerContext } from "@modelcontextprotocol/server";
import { isToolnexusError } from "../../../core/errors.js";
import { canAnswer } from "../../../core/input/pending-input.js";
import { openInputState, sealInputState, type InputDeps, type InputRequests } from "../../../core/input/requests.js";

// Another key than a plain call's pending (mcp-client:): a task's state names an execution.
const keyOf = (tool: string) => `mcp-task:${tool}`;

/**
 * A task that asked for input before it was handed out, as an `input_required` result the
 * client answers by retrying `tools/call` (MRTR); undefined when the request's client did not
 * declare a capability the requests need (it then gets the task, and answers with tasks/update).
 * `requestState` seals the execution that waits and the event it asked with.
 */
export function taskInputRequired(
  ctx: ServerContext,
  requests: InputRequests,
  at: { tool: string; caller: string; execution: string; after: number },
  deps: InputDeps,
): InputRequiredResult | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps = (envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? {}) as Record<string, unknown>;
  if (!canAnswer(requests, caps)) return undefined;
  const now = Date.now();
  const requestState = sealInputState(
    deps.sealer,
    { tool: keyOf(at.tool), caller: at.caller, round: 1, expiresAt: now + deps.inputTimeoutMs, execution: at.execution, after: at.after },
    now,
  );
  return { resultType: "input_required", inputRequests: requests, requestState } as InputRequiredResult;
}

/**
 * The execution a retry's `requestState` answers, and the event it asked with; undefined when
 * the state is not a task's (a plain call's pending, opened elsewhere). INPUT_TIMEOUT when late.
 */
export function taskRetryOf(
  requestState: string,
  tool: string,
  caller: string,
  deps: InputDeps,
): { execution: string; after: number } | undefined {
  try {
    const state = openInputState(deps.sealer, requestState, keyOf(tool), caller);
    return state.execution === undefined ? undefined : { execution: state.execution, after: state.after ?? 0 };
  } catch (err) {
    if (isToolnexusError(err, "INVALID_STATE")) return undefined;
    throw err;
  }
}
