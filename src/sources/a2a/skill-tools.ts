import { sanitize } from "../../core/sanitize.js";
import { withForwardedBearer } from "../../net/forward-auth.js";
import type { JSONSchema, Logger, Tool } from "../../core/types.js";
import type { UpstreamAuth } from "../../core/upstream-auth.js";
import type { CardSkill } from "./agent-card.js";
import type { ConnectedAgent } from "./connect-agent.js";
import { runTask } from "./run-task.js";

/** The one input every A2A skill tool takes. */
const TASK_INPUT_SCHEMA: JSONSchema = {
  type: "object",
  properties: { task: { type: "string" } },
  required: ["task"],
};

/** Per-agent call settings. */
export interface SkillToolOptions {
  timeout: number;
  /** Send a JWT caller's bearer (its own, or one exchanged for it) to the agent instead of the configured Authorization. */
  upstreamAuth?: UpstreamAuth;
  pollEvery: number;
  logger: Logger;
  /** Replaces the card's name as the tool-name prefix; `false` ⇒ the skill ids alone. */
  prefix?: string | false;
}

/**
 * One `source:"a2a"` tool per card skill, named `sanitize(card.name)_sanitize(skill.id ?? skill.name)`
 * (`opts.prefix` replaces the card's name; `false` drops the prefix).
 * A skill with neither an id nor a name cannot be named and is skipped with a warning.
 */
export function skillTools(agent: ConnectedAgent, opts: SkillToolOptions): Tool[] {
  const agentName = agent.card.name;
  const tools: Tool[] = [];
  for (const skill of agent.card.skills) {
    const key = firstText(skill.id, skill.name);
    if (!key) {
      opts.logger.warn({ agent: agentName }, "A2A skill without id or name skipped");
      continue;
    }
    tools.push({
      name: opts.prefix === false ? sanitize(key) : `${sanitize(opts.prefix ?? agentName)}_${sanitize(key)}`,
      description: describe(skill, key),
      inputSchema: structuredClone(TASK_INPUT_SCHEMA),
      source: "a2a",
      ...(opts.upstreamAuth ? { forwardAuth: true, upstreamAuth: opts.upstreamAuth } : {}),
      execute: (args, ctx) =>
        withForwardedBearer(opts.upstreamAuth ? ctx?.auth : undefined, () =>
          runTask(agent.client, String(args.task ?? ""), {
            agent: agentName,
            timeout: opts.timeout,
            pollEvery: opts.pollEvery,
            logger: opts.logger,
            ...(ctx?.signal ? { signal: ctx.signal } : {}),
            ...(ctx?.onProgress ? { onProgress: ctx.onProgress } : {}),
          }),
        ),
    });
  }
  return tools;
}

function describe(skill: CardSkill, key: string): string {
  return firstText(skill.description, skill.name) ?? key;
}

function firstText(...values: unknown[]): string | undefined {
  for (const v of values) if (typeof v === "string" && v.trim() !== "") return v;
  return undefined;
}
