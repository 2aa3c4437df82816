import type { RequestId, Server, ServerContext } from "@modelcontextprotocol/server";
import { isToolnexusError } from "../../../core/errors.js";
import type { Caller } from "../../auth/index.js";
import { toJsonRpcError } from "../results.js";
import type { McpTasks } from "./tasks.js";

// The params the SDK checks before a handler runs (a custom method's schema): an object with a string taskId.
const taskParams = {
  "~standard": {
    version: 1,
    vendor: "toolnexus",
    validate: (value: unknown) =>
      typeof value === "object" && value !== null && typeof (value as { taskId?: unknown }).taskId === "string"
        ? { value: value as { taskId: string } }
        : { issues: [{ message: "params.taskId must be a string" }] },
  },
} as const;

/**
 * `tasks/get`, `tasks/update` and `tasks/cancel` on a 2026-era Server, for requests that
 * declare the tasks extension (others get -32021). The SDK refuses the removed `tasks/result`
 * and `tasks/list` (-32601) and checks `Mcp-Name` against `params.taskId`.
 */
export function registerTaskMethods(
  server: Server,
  tasks: McpTasks,
  caller: Caller,
  requestIdOf: (id: RequestId) => string,
  scrub: (s: string) => string,
): void {
  const method =
    (fn: (taskId: string, ctx: ServerContext) => Promise<object>) => async (params: { taskId: string }, ctx: ServerContext) => {
      if (!tasks.optedIn(ctx)) throw tasks.missingCapability();
      try {
        return await fn(params.taskId, ctx);
      } catch (err) {
        // STORE_UNAVAILABLE and the like: a JSON-RPC error with our code in data, as for tools/call.
        throw isToolnexusError(err) ? toJsonRpcError(err, requestIdOf(ctx.mcpReq.id), scrub) : err;
      }
    };
  server.setRequestHandler("tasks/get", { params: taskParams }, method((id) => tasks.get(caller, id)) as never);
  server.setRequestHandler(
    "tasks/update",
    { params: taskParams },
    method((id, ctx) =>
      // The SDK lifts a request's inputResponses out of its params (they are reserved retry fields).
      tasks.update(caller, id, (ctx.mcpReq as { inputResponses?: unknown }).inputResponses),
    ) as never,
  );
  server.setRequestHandler("tasks/cancel", { params: taskParams }, method((id) => tasks.cancel(caller, id)) as never);
}
