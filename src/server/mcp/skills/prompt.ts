import { ProtocolErrorCode, type GetPromptResult, type ListPromptsResult } from "@modelcontextprotocol/server";
import type { Toolkit } from "../../../core/toolkit.js";
import type { Caller } from "../../auth/index.js";
import { JsonRpcError } from "../results.js";

const SKILL_TOOL = "skill";
const SKILLS_PROMPT = "skills";

/** True when `caller` may use the skill tool and skills exist: they get the skills prompt and extension. */
export function hasSkills(toolkit: Toolkit, caller: Caller): boolean {
  return caller.allows(SKILL_TOOL) && toolkit.skills().length > 0;
}

/** `prompts/list`: the skills catalog as one prompt, for a caller that may use the skill tool and when skills exist. */
export function listPrompts(toolkit: Toolkit, caller: Caller): ListPromptsResult {
  if (!hasSkills(toolkit, caller)) return { prompts: [] };
  return {
    prompts: [
      { name: SKILLS_PROMPT, description: "The agent skills this gateway serves, as a system-prompt catalog (GET /skills/prompt)." },
    ],
  };
}

/** `prompts/get`: the skills catalog prompt; any other name is -32602. */
export function getPrompt(toolkit: Toolkit, caller: Caller, name: string): GetPromptResult {
  if (name !== SKILLS_PROMPT || !hasSkills(toolkit, caller))
    throw new JsonRpcError(ProtocolErrorCode.InvalidParams, `No prompt named "${name}"`);
  const text = toolkit.skillsPrompt();
  return { description: "The agent skills catalog", messages: [{ role: "user", content: { type: "text", text } }] };
}
