import type { HttpToolConfig } from "../../config/schema/sources.js";
import type { Source, SourceContext, SourceStatus } from "../../core/source.js";
import type { Tool } from "../../core/types.js";
import { httpTool } from "./http-tool.js";
import type { SharedHttpClient } from "./shared-client.js";

/**
 * One `http:` declaration. Building makes no request (an HTTP endpoint has no session to
 * open): the source is `connected` once the tool is built; unreachable upstreams show per
 * call as 502. It is `failed` only when the egress config cannot be parsed.
 */
export class HttpSource implements Source {
  readonly kind = "http" as const;
  readonly name: string;
  private tool?: Tool;
  private state: SourceStatus["state"] = "connecting";
  private error?: string;
  private acquired = false;

  constructor(
    private readonly cfg: HttpToolConfig,
    private readonly client: SharedHttpClient,
    private readonly secrets: readonly string[],
  ) {
    this.name = cfg.name;
  }

  async build(ctx: SourceContext): Promise<void> {
    try {
      const dispatcher = this.client.acquire();
      this.acquired = true;
      this.tool = httpTool(this.cfg, { dispatcher, secrets: this.secrets, logger: ctx.logger });
      this.state = "connected";
    } catch (err) {
      this.state = "failed";
      this.error = (err as Error).message;
    }
  }

  tools(): readonly Tool[] {
    return this.tool ? [this.tool] : [];
  }

  status(): SourceStatus {
    return {
      source: this.kind,
      name: this.name,
      state: this.state,
      tools: this.tool ? 1 : 0,
      ...(this.error ? { error: this.error } : {}),
    };
  }

  async close(): Promise<void> {
    this.tool = undefined;
    if (this.acquired) {
      this.acquired = false;
      await this.client.release();
    }
  }
}
