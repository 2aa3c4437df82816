import type { ClientCapabilities, ServerContext } from "@modelcontextprotocol/server";
import { INPUT_REPLY_KEY, type InputRequests, type InputResponses } from "../../../core/input/requests.js";

// Which client capability each server-to-client request needs.
const CAPABILITY = { "elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots" } as const;

/**
 * The questions of a call made by a 2025 client over stdio (`toolnexus mcp`): a stdio
 * connection is stateful, so each goes to the client as a server-to-client request related to
 * the call (`elicitation/create`, `sampling/createMessage`, `roots/list`), and the client's
 * result or error is the answer. A request the client did not declare the capability for is
 * never sent: it is answered with an error at once (the upstream sees "Method not found").
 * Undefined when the client declared none of them (the call is then refused as before).
 */
export function stdioAsk(
  ctx: ServerContext,
  caps: ClientCapabilities | undefined,
): ((requests: InputRequests) => Promise<InputResponses>) | undefined {
  const declared = new Set(Object.entries(CAPABILITY).flatMap(([method, cap]) => (caps?.[cap] ? [method] : [])));
  if (declared.size === 0) return undefined;
  return async (requests) => {
    const entries = await Promise.all(
      Object.entries(requests).map(async ([key, { method, params }]) => {
        if (!declared.has(method)) {
          const error = { code: -32601, message: "Method not found: the client did not declare this capability" };
          return [key, { [INPUT_REPLY_KEY]: { error } }] as const;
        }
        try {
          const result = await ctx.mcpReq.send(
            { method: method as keyof typeof CAPABILITY, ...(params ? { params } : {}) },
            {
              signal: ctx.mcpReq.signal,
              // The call's own deadline bounds the wait, not the SDK's 60 s request timeout.
              timeout: 2_147_483_647,
            },
          );
          return [key, { [INPUT_REPLY_KEY]: { result } }] as const;
        } catch (err) {
          const e = err as { code?: unknown; message?: unknown; data?: unknown };
          const error = {
            code: typeof e.code === "number" ? e.code : -32603,
            message: String(e.message ?? err),
            ...(e.data ? { data: e.data } : {}),
          };
          return [key, { [INPUT_REPLY_KEY]: { error } }] as const;
        }
      }),
    );
    return Object.fromEntries(entries) as InputResponses;
  };
}
