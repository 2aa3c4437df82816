import { pathToFileURL } from "node:url";
import { NO_SKILLS_PROMPT } from "../../core/toolkit.js";
import type { JSONSchema } from "../../core/types.js";
import { byCodeUnit } from "./walk.js";

/** The `skill` tool's description: opencode's skill.txt, verbatim. */
export const SKILL_TOOL_DESCRIPTION = [
  "Load a specialized skill when the task at hand matches one of the skills listed in the system prompt.",
  "",
  "Use this tool to inject the skill's instructions and resources into current conversation. The output may contain detailed workflow guidance as well as references to scripts, files, etc in the same directory as the skill.",
  "",
  "The skill name must match one of the skills listed in your system prompt.",
].join("\n");

/** The `skill` tool's input schema, closed to unknown arguments. */
export const SKILL_TOOL_SCHEMA: JSONSchema = {
  type: "object",
  properties: { name: { type: "string", description: "The name of the skill to load" } },
  required: ["name"],
  additionalProperties: false,
};

/** The instruction preamble of the prompt catalog, byte-identical across ports. */
const PROMPT_PREAMBLE =
  "Skills provide specialized instructions and workflows for specific tasks.\n" +
  "Use the skill tool to load a skill when a task matches its description.";

/** A loaded skill: its frontmatter fields, its body and where it lives. */
export interface Skill {
  name: string;
  description: string;
  /** Absolute path of the SKILL.md. */
  location: string;
  /** Directory holding the SKILL.md: the skill's base directory. */
  dir: string;
  /** The trimmed body after the frontmatter. */
  content: string;
}

/** The progressive-disclosure block the `skill` tool returns, byte-exact. */
export function renderSkill(skill: Skill, files: readonly string[]): string {
  return [
    `<skill_content name="${skill.name}">`,
    `# Skill: ${skill.name}`,
    "",
    skill.content,
    "",
    `Base directory for this skill: ${pathToFileURL(skill.dir).href}`,
    "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.",
    "Note: file list is sampled.",
    "",
    "<skill_files>",
    files.map((f) => `<file>${f}</file>`).join("\n"),
    "</skill_files>",
    "</skill_content>",
  ].join("\n");
}

/** The isError output for an unknown skill name; lists every loaded name, sorted. */
export function renderNotFound(name: string, skills: readonly Skill[]): string {
  const names = skills.map((s) => s.name).sort(byCodeUnit);
  return `Skill "${name}" not found. Available skills: ${names.length > 0 ? names.join(", ") : "none"}`;
}

/**
 * The system-prompt catalog: the preamble and a sorted list of the skills
 * that have a description, or {@link NO_SKILLS_PROMPT} when none has.
 */
export function renderPrompt(skills: readonly Skill[]): string {
  const described = skills.filter((s) => s.description !== "").sort((a, b) => byCodeUnit(a.name, b.name));
  if (described.length === 0) return NO_SKILLS_PROMPT;
  return `${PROMPT_PREAMBLE}\n\n## Available Skills\n${described.map((s) => `- **${s.name}**: ${s.description}`).join("\n")}`;
}
