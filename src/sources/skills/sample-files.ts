import { SKILL_FILE, SKIP_DIRS } from "./discover.js";
import { walkTree } from "./walk.js";

/** How many sibling files the `skill` tool lists. */
const SAMPLE_LIMIT = 10;

/**
 * Up to `limit` files below a skill's directory, other than SKILL.md files, as absolute
 * paths in sorted depth-first order. Follows symlinks like discovery does (each directory
 * once, so a cycle cannot hang), skips node_modules and .git, and stops as soon as it has enough.
 */
export async function sampleFiles(dir: string, signal?: AbortSignal, limit = SAMPLE_LIMIT): Promise<string[]> {
  const files: string[] = [];
  if (limit <= 0) return files;
  for await (const entry of walkTree(dir, { skipDirs: SKIP_DIRS, ...(signal ? { signal } : {}) })) {
    if (entry.kind !== "file" || entry.name === SKILL_FILE) continue;
    files.push(entry.path);
    if (files.length >= limit) break;
  }
  return files;
}
