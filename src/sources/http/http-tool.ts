import type { Dispatcher } from "undici";
import type { HttpToolConfig } from "../../config/schema/sources.js";
import { upstreamAuthOf } from "../../config/upstream-auth.js";
import type { Logger, Tool } from "../../core/types.js";
import { withBearerHeader } from "../../net/forward-auth.js";
import { buildHttpRequest, defaultInputSchema } from "./build-request.js";
import { DEFAULT_HTTP_TIMEOUT_MS, DEFAULT_MAX_RESPONSE_BYTES, sendRequest } from "./send-request.js";
import { headerSecrets, scrubSecrets, toToolResult } from "./to-result.js";

/** What an HTTP tool needs besides its declaration. */
export interface HttpToolDeps {
  dispatcher: Dispatcher;
  /** Every `${VAR}` value of the config; those inside this tool's headers are scrubbed from outputs. */
  secrets: readonly string[];
  logger: Logger;
}

/**
 * One declared endpoint as a Tool. Header values are never logged; a secret
 * an upstream echoes back (in a body or an error page) is replaced by `[redacted]`.
 */
export function httpTool(cfg: HttpToolConfig, deps: HttpToolDeps): Tool {
  const timeout = cfg.timeout ?? DEFAULT_HTTP_TIMEOUT_MS;
  const maxResponseBytes = cfg.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const secrets = headerSecrets(cfg.headers, deps.secrets);
  const method = (cfg.method ?? "GET").toUpperCase();
  const upstreamAuth = upstreamAuthOf(cfg, { source: cfg.name, url: cfg.url });
  return {
    name: cfg.name,
    description: cfg.description ?? `${method} ${cfg.url}`,
    inputSchema: cfg.inputSchema ?? defaultInputSchema(cfg),
    source: "http",
    ...(upstreamAuth ? { forwardAuth: true, upstreamAuth } : {}),
    async execute(args, ctx) {
      const req = buildHttpRequest(cfg, args ?? {});
      if (typeof req === "string") return { output: req, isError: true };
      const started = performance.now();
      // upstreamAuth: the JWT caller's token, or the one exchanged for it, replaces the configured Authorization.
      if (upstreamAuth) req.headers = withBearerHeader(req.headers, ctx?.auth);
      const res = await sendRequest(req, {
        dispatcher: deps.dispatcher,
        timeout,
        maxResponseBytes,
        label: cfg.name,
        ...(ctx?.signal ? { signal: ctx.signal } : {}),
      });
      deps.logger.debug(
        { method: req.method, origin: req.url.origin, status: res.status, ms: Math.round(performance.now() - started) },
        "http call",
      );
      const result = toToolResult(res, cfg.resultMode ?? "text", maxResponseBytes);
      return secrets.length ? { ...result, output: scrubSecrets(result.output, secrets) } : result;
    },
  };
}
