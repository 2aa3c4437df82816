import type { Dispatcher } from "undici";
import { upstreamAuthOf } from "../../config/upstream-auth.js";
import type { A2aAgentConfig, EgressConfig } from "../../config/schema/index.js";
import { ToolListSource, type SourceContext } from "../../core/source.js";
import { EgressGuard } from "../../net/egress-guard.js";
import { connectAgent } from "./connect-agent.js";
import { forwardingFetch } from "../../net/forward-auth.js";
import { guardedFetch } from "./guarded-fetch.js";
import { skillTools } from "./skill-tools.js";

/** Defaults of an A2A agent's calls. */
const DEFAULT_TIMEOUT_MS = 300_000;
const DEFAULT_POLL_EVERY_MS = 1_000;
/** The card is read while the service starts: a silent agent must not hold readiness for minutes. */
const CARD_TIMEOUT_CAP_MS = 30_000;

/** What an A2A source needs from the loaded config beside its own entry. */
export interface A2aSourceOptions {
  egress?: EgressConfig;
  /** Values expanded from the environment: kept out of status errors. */
  secrets?: readonly string[];
}

/**
 * One entry of `agents:` — a remote A2A agent whose card skills become tools. A card that
 * cannot be read or used marks this source `failed` (error text without secrets) with no
 * tools; the other sources load regardless.
 */
export class A2aSource extends ToolListSource {
  readonly kind = "a2a" as const;
  private dispatcher?: Dispatcher;

  constructor(
    readonly name: string,
    private readonly cfg: A2aAgentConfig,
    private readonly opts: A2aSourceOptions = {},
  ) {
    super();
  }

  async build(ctx: SourceContext): Promise<void> {
    const timeout = this.cfg.timeout ?? DEFAULT_TIMEOUT_MS;
    try {
      this.dispatcher = new EgressGuard(this.opts.egress).dispatcher();
      const guarded = guardedFetch(this.name, this.dispatcher, this.cfg.headers);
      // The caller's token goes only to the configured card's origin, whatever URLs the card names.
      const upstreamAuth = upstreamAuthOf(this.cfg, { source: this.name, url: this.cfg.card });
      const fetchImpl = upstreamAuth ? forwardingFetch(guarded, new URL(this.cfg.card).origin) : guarded;
      const agent = await connectAgent(this.cfg.card, fetchImpl, Math.min(timeout, CARD_TIMEOUT_CAP_MS));
      this.loaded = skillTools(agent, {
        timeout,
        pollEvery: this.cfg.pollEvery ?? DEFAULT_POLL_EVERY_MS,
        logger: ctx.logger,
        ...(upstreamAuth ? { upstreamAuth } : {}),
        ...(this.cfg.prefix !== undefined ? { prefix: this.cfg.prefix } : {}),
      });
      this.state = "connected";
      ctx.logger.info(
        { agent: agent.card.name, protocolVersion: agent.protocolVersion, transport: agent.transport, tools: this.loaded.length },
        "A2A agent loaded",
      );
    } catch (err) {
      this.failed(this.redact((err as Error).message));
      ctx.logger.error({ err: this.error }, "A2A agent failed to load");
    }
  }

  override async close(): Promise<void> {
    await super.close();
    const d = this.dispatcher;
    this.dispatcher = undefined;
    await d?.destroy();
  }

  private redact(text: string): string {
    let out = text;
    for (const s of this.opts.secrets ?? []) if (s.length >= 4 && out.includes(s)) out = out.split(s).join("[redacted]");
    return out;
  }
}
