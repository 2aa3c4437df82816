import type { Dispatcher } from "undici";
import { withBearerHeader } from "../../net/forward-auth.js";
import type { Logger, Tool } from "../../core/types.js";
import type { UpstreamAuth } from "../../core/upstream-auth.js";
import { sendRequest } from "../http/send-request.js";
import { scrubSecrets, toToolResult } from "../http/to-result.js";
import { buildOperationRequest } from "./operation-request.js";
import type { OperationSpec } from "./operations.js";

/** What every tool of one OpenAPI source shares. */
export interface OperationToolEnv {
  baseUrl: string;
  headers: Record<string, string>;
  /** Send a JWT caller's bearer (its own, or one exchanged for it) instead of the configured Authorization. */
  upstreamAuth?: UpstreamAuth;
  dispatcher: Dispatcher;
  timeout: number;
  maxResponseBytes: number;
  /** Secrets inside `headers`, scrubbed from outputs. */
  secrets: readonly string[];
  logger: Logger;
}

/** One operation as a `source: "http"` Tool named `name`; results follow the http tool rules. */
export function operationTool(name: string, op: OperationSpec, env: OperationToolEnv): Tool {
  return {
    name,
    description: op.description,
    inputSchema: op.inputSchema,
    source: "http",
    ...(env.upstreamAuth ? { forwardAuth: true, upstreamAuth: env.upstreamAuth } : {}),
    async execute(args, ctx) {
      const req = buildOperationRequest(op, env.baseUrl, env.headers, args ?? {});
      if (typeof req === "string") return { output: req, isError: true };
      if (env.upstreamAuth) req.headers = withBearerHeader(req.headers, ctx?.auth);
      const started = performance.now();
      const res = await sendRequest(req, {
        dispatcher: env.dispatcher,
        timeout: env.timeout,
        maxResponseBytes: env.maxResponseBytes,
        label: name,
        ...(ctx?.signal ? { signal: ctx.signal } : {}),
      });
      env.logger.debug(
        { operation: op.id, method: req.method, origin: req.url.origin, status: res.status, ms: Math.round(performance.now() - started) },
        "openapi call",
      );
      const result = toToolResult(res, "text", env.maxResponseBytes);
      return env.secrets.length ? { ...result, output: scrubSecrets(result.output, env.secrets) } : result;
    },
  };
}
