import type { OpenApiConfig } from "../../config/schema/sources.js";
import { upstreamAuthOf } from "../../config/upstream-auth.js";
import { sanitize } from "../../core/sanitize.js";
import { ToolListSource, type SourceContext } from "../../core/source.js";
import { DEFAULT_HTTP_TIMEOUT_MS, DEFAULT_MAX_RESPONSE_BYTES } from "../http/send-request.js";
import type { SharedHttpClient } from "../http/shared-client.js";
import { headerSecrets, scrubSecrets } from "../http/to-result.js";
import { filterTools } from "../mcp/tool-filter.js";
import { loadSpec, resolveBaseUrl } from "./load-spec.js";
import { operationTool } from "./operation-tool.js";
import { extractOperations } from "./operations.js";

/**
 * One `openapi:` entry: a document loaded at build, one tool per operation named
 * `prefix_operationId`. A document that cannot be loaded marks only this source `failed`.
 */
export class OpenApiSource extends ToolListSource {
  readonly kind = "http" as const;
  readonly name: string;
  private acquired = false;

  constructor(
    private readonly cfg: OpenApiConfig,
    private readonly client: SharedHttpClient,
    private readonly secrets: readonly string[],
    name?: string,
  ) {
    super();
    this.name = name ?? (cfg.prefix || cfg.spec);
  }

  async build(ctx: SourceContext): Promise<void> {
    const secrets = headerSecrets(this.cfg.headers, this.secrets);
    try {
      const dispatcher = this.client.acquire();
      this.acquired = true;
      const timeout = this.cfg.timeout ?? DEFAULT_HTTP_TIMEOUT_MS;
      const maxResponseBytes = this.cfg.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
      const doc = await loadSpec(this.cfg.spec, { dispatcher, timeout, maxBytes: maxResponseBytes, headers: this.specHeaders() });
      const baseUrl = resolveBaseUrl(doc, this.cfg.spec, this.cfg.baseUrl);
      const { operations, warnings } = extractOperations(doc);
      for (const w of warnings) ctx.logger.warn({ warning: w }, "openapi operation skipped");
      const { kept, unknown } = filterTools(
        operations.map((o) => ({ ...o, name: o.id })),
        this.cfg.operations,
      );
      if (unknown.length) ctx.logger.warn({ unknown }, "operations map names operations the document does not have");
      const env = {
        baseUrl,
        headers: this.cfg.headers ?? {},
        upstreamAuth: upstreamAuthOf(this.cfg, {
          ...(typeof this.cfg.prefix === "string" ? { source: this.cfg.prefix } : {}),
          url: baseUrl,
        }),
        dispatcher,
        timeout,
        maxResponseBytes,
        secrets,
        logger: ctx.logger,
      };
      const seen = new Set<string>();
      this.loaded = [];
      for (const op of kept) {
        const name = this.toolName(op.id);
        if (seen.has(name)) {
          ctx.logger.warn({ tool: name, operation: op.id }, "two operations map to one tool name; the first wins");
          continue;
        }
        seen.add(name);
        this.loaded.push(operationTool(name, op, env));
      }
      this.state = "connected";
      ctx.logger.info({ tools: this.loaded.length, baseUrl: new URL(baseUrl).origin }, "openapi document loaded");
    } catch (err) {
      this.failed(scrubSecrets((err as Error).message, secrets));
      ctx.logger.error({ err: this.error }, "openapi document failed to load");
    }
  }

  /** `prefix_operationId`, sanitized; just the operationId without a prefix. */
  private toolName(id: string): string {
    return sanitize(this.cfg.prefix ? `${this.cfg.prefix}_${id}` : id);
  }

  /** Headers go with the spec download only when the spec is on the configured API origin (or none is configured). */
  private specHeaders(): Record<string, string> {
    const headers = this.cfg.headers ?? {};
    if (!this.cfg.baseUrl || !/^https?:\/\//i.test(this.cfg.spec)) return headers;
    return new URL(this.cfg.spec).origin === new URL(this.cfg.baseUrl).origin ? headers : {};
  }

  override async close(): Promise<void> {
    await super.close();
    if (this.acquired) {
      this.acquired = false;
      await this.client.release();
    }
  }
}
