import type { Tool } from "../../core/types.js";
import { renderNotFound, renderSkill, SKILL_TOOL_DESCRIPTION, SKILL_TOOL_SCHEMA, type Skill } from "./format.js";
import { sampleFiles } from "./sample-files.js";

/**
 * The one `skill` tool: loads a skill's instructions and a sample of its
 * files by name. The file sample is taken at call time, so it shows the directory as it is now.
 */
export function skillTool(lookup: () => readonly Skill[]): Tool {
  return {
    name: "skill",
    description: SKILL_TOOL_DESCRIPTION,
    inputSchema: SKILL_TOOL_SCHEMA,
    source: "skill",
    async execute(args, ctx) {
      const name = typeof args.name === "string" ? args.name : String(args.name ?? "");
      const skills = lookup();
      const skill = skills.find((s) => s.name === name);
      if (!skill) return { output: renderNotFound(name, skills), isError: true };
      const files = await sampleFiles(skill.dir, ctx?.signal);
      return { output: renderSkill(skill, files), isError: false };
    },
  };
}
