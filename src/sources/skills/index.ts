import type { Source } from "../../core/source.js";
import type { LoadedConfig } from "../../config/load.js";
import { SkillSource } from "./skill-source.js";

export { SkillSource } from "./skill-source.js";
export { parseSkillFile } from "./frontmatter.js";

/** One skill source over every `skills:` directory (already absolute), or none when unset. */
export function skillSources({ config }: LoadedConfig): Source[] {
  return config.skills?.length ? [new SkillSource("skills", config.skills)] : [];
}
