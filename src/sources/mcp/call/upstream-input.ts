import {
  asInputRequests,
  inputRequired,
  type InputDeps,
  type InputRequests,
  inputResponsesOf,
  openInputState,
  sealInputState,
  type InputResponses,
} from "../../../core/input/requests.js";
import { askedOf, checkAgainstState } from "../../../core/input/responses.js";
import { EVERY_INPUT_CAPABILITY, inputCapabilitiesOf } from "../../../core/input/pending-input.js";
import { sharedSealer } from "../../../core/seal.js";
import type { ToolContext, ToolResult } from "../../../core/types.js";

/** Defaults of a source built without the service (a library user's own McpServerSource). */
export const DEFAULT_INPUT_DEPS: InputDeps = { sealer: sharedSealer(undefined), inputTimeoutMs: 600_000 };

/**
 * The input capabilities told upstream on a 2026 `tools/call`: a REST caller answers all (every
 * input request it may return reaches it as a pending); an MCP client only those it declared.
 * Sent per call in the request's `_meta`, never in a 2025 `initialize`: a 2025 server asks
 * mid-call, which this stateless path cannot carry.
 */
export function answerableCapabilities(ctx: ToolContext): Record<string, unknown> {
  const declared = ctx.clientCapabilities;
  return declared ? inputCapabilitiesOf(declared) : EVERY_INPUT_CAPABILITY;
}

/** The retry members of a repeated `tools/call`, and the round it is. */
export interface Retry {
  inputResponses?: InputResponses;
  requestState?: string;
  /** The upstream task the answer goes to (`tasks/update`), when a task asked. */
  taskId?: string;
  round: number;
}

/** The sealed-state key of an upstream tool: a state for another server's tool of the same name is foreign. */
function keyOf(server: string, tool: string): string {
  return `mcp:${server}/${tool}`;
}

/**
 * The retry an answer asks for, opened before anything reaches the upstream: INVALID_STATE
 * for a state this gateway did not issue for this tool and caller, INPUT_TIMEOUT when late.
 * A declined answer declines each elicitation; one that asked for sampling or roots cannot
 * be declined upstream, and ends here as an `isError` result.
 */
export function openRetry(deps: InputDeps, server: string, tool: string, ctx: ToolContext): Retry | ToolResult | undefined {
  const answer = ctx.answer;
  if (!answer) return undefined;
  const state = openInputState(deps.sealer, answer.id, keyOf(server, tool), sealedCaller(ctx));
  const retry: Retry = {
    round: state.round + 1,
    ...(state.requestState !== undefined ? { requestState: state.requestState } : {}),
    ...(state.taskId !== undefined ? { taskId: state.taskId } : {}),
  };
  if (answer.ok) return { ...retry, inputResponses: checkAgainstState(state, inputResponsesOf(answer)) };
  const asked = Object.entries(state.asked ?? {});
  if (asked.some(([, method]) => method !== "elicitation/create")) {
    const reason = answer.reason ? `: ${answer.reason}` : "";
    return { output: `declined${reason}`, isError: true, metadata: { server, tool } };
  }
  return { ...retry, inputResponses: Object.fromEntries(asked.map(([key]) => [key, { action: "decline" }])) };
}

/**
 * The REST pending of an upstream `input_required` result, its id sealing what the retry
 * needs; undefined when `result` is not one. A result that carries only a `requestState`
 * (the server sheds load) has nothing to ask: it is an error the caller may retry.
 */
export function upstreamPending(
  deps: InputDeps,
  server: string,
  tool: string,
  ctx: ToolContext,
  result: unknown,
  round: number,
): ToolResult | undefined {
  const r = result as { resultType?: unknown; inputRequests?: unknown; requestState?: unknown };
  if (r.resultType !== "input_required") return undefined;
  const requests = asInputRequests(r.inputRequests);
  if (!requests) {
    return { output: `MCP server "${server}" asked to retry ${tool} later`, isError: true, metadata: { server, tool } };
  }
  return sealedPending(
    deps,
    server,
    tool,
    ctx,
    requests,
    round,
    typeof r.requestState === "string" ? { requestState: r.requestState } : {},
  );
}

/**
 * The REST pending of `requests`, its id sealing what the answer needs: the upstream's
 * `requestState` (a retried `tools/call`) or its `taskId` (a `tasks/update`).
 */
export function sealedPending(
  deps: InputDeps,
  server: string,
  tool: string,
  ctx: ToolContext,
  requests: InputRequests,
  round: number,
  carry: { requestState?: string; taskId?: string },
): ToolResult {
  const now = Date.now();
  const expiresAt = now + deps.inputTimeoutMs;
  const caller = sealedCaller(ctx);
  const id = sealInputState(
    deps.sealer,
    { tool: keyOf(server, tool), ...(caller !== undefined ? { caller } : {}), ...carry, round, expiresAt, ...askedOf(requests) },
    now,
  );
  const res = inputRequired(id, requests, expiresAt);
  return { ...res, metadata: { ...res.metadata, server, tool } };
}

/**
 * Who a sealed state is bound to: the caller's kind and id (a JWT `sub` equal to an API key's
 * id is another caller), or the bare id when the toolkit runs outside the service.
 */
function sealedCaller(ctx: ToolContext): string | undefined {
  return ctx.callerKey ?? ctx.caller;
}
