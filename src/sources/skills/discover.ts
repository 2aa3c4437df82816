import { readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import type { SkippedSkill } from "../../core/source.js";
import type { Logger } from "../../core/types.js";
import type { Skill } from "./format.js";
import { parseSkillFile } from "./frontmatter.js";
import { walkTree, type WalkEntry } from "./walk.js";

/** The file every skill is declared in. */
export const SKILL_FILE = "SKILL.md";
/** Directories never searched: dependency trees and VCS data hold no skills of ours. */
export const SKIP_DIRS: ReadonlySet<string> = new Set(["node_modules", ".git"]);
/** A SKILL.md above this size is refused: it is meant to be read into a model's context. */
const MAX_SKILL_BYTES = 1024 * 1024;

/** What discovery found across every skills directory. */
export interface Discovery {
  /** Loaded skills, in discovery order (first name wins). */
  skills: Skill[];
  /** SKILL.md files not loaded, in discovery order. */
  skipped: SkippedSkill[];
  /** Skills directories that could not be listed at all. */
  failedRoots: string[];
}

const READ_CONCURRENCY = 16;

type Candidate = { skill: Skill } | { skip: SkippedSkill };

/**
 * Finds every SKILL.md below `roots` (in the order given; each root walked in sorted order),
 * parses them, and keeps the first skill of each name. Never throws for a bad file.
 */
export async function discoverSkills(roots: readonly string[], logger: Logger): Promise<Discovery> {
  const visited = new Set<string>();
  const entries: WalkEntry[] = [];
  const failedRoots: string[] = [];
  for (const root of roots) {
    let real: string;
    try {
      // Locations are reported below the resolved root, whatever link the config named.
      real = await realpath(root);
    } catch (err) {
      failedRoots.push(root);
      logger.warn({ dir: root, err: (err as NodeJS.ErrnoException).code }, "skills directory cannot be read");
      continue;
    }
    const onDirError = (dir: string, err: NodeJS.ErrnoException) => {
      if (dir === real) failedRoots.push(root);
      logger.warn({ dir, err: err.code ?? err.message }, "skills directory cannot be listed; skipped");
    };
    for await (const entry of walkTree(real, { visited, skipDirs: SKIP_DIRS, leaves: new Set([SKILL_FILE]), onDirError })) {
      if (entry.name === SKILL_FILE) entries.push(entry);
    }
  }

  // Read a few at a time; the results keep the walk's order, so "first wins" stays deterministic.
  const candidates = await mapLimit(entries, READ_CONCURRENCY, readCandidate);
  const skills: Skill[] = [];
  const skipped: SkippedSkill[] = [];
  const firstOf = new Map<string, Skill>();
  for (const c of candidates) {
    if ("skip" in c) {
      skipped.push(c.skip);
      logger.warn({ ...c.skip }, "SKILL.md skipped");
      continue;
    }
    const first = firstOf.get(c.skill.name);
    if (first) {
      const skip: SkippedSkill = {
        reason: "duplicate-name",
        location: c.skill.location,
        error: `"${c.skill.name}" is already loaded from ${first.location}`,
      };
      skipped.push(skip);
      logger.warn({ name: c.skill.name, location: c.skill.location, kept: first.location }, "duplicate skill name; the first one wins");
      continue;
    }
    firstOf.set(c.skill.name, c.skill);
    skills.push(c.skill);
  }
  return { skills, skipped, failedRoots };
}

async function readCandidate(entry: WalkEntry): Promise<Candidate> {
  const location = entry.path;
  const unreadable = (error: string): Candidate => ({ skip: { reason: "unreadable", location, error } });
  if (entry.kind === "missing") return unreadable("dangling symlink");
  let text: string;
  try {
    // stat first: reading a FIFO or a device named SKILL.md could block discovery forever.
    const s = await stat(location);
    if (!s.isFile()) return unreadable(s.isDirectory() ? "is a directory" : "not a regular file");
    if (s.size > MAX_SKILL_BYTES) return unreadable(`larger than ${MAX_SKILL_BYTES} bytes`);
    text = await readFile(location, "utf8");
  } catch (err) {
    return unreadable((err as NodeJS.ErrnoException).code ?? "cannot be read");
  }
  const parsed = parseSkillFile(text);
  if ("error" in parsed) return { skip: { reason: "malformed-frontmatter", location, error: parsed.error } };
  if (parsed.name === undefined) return { skip: { reason: "missing-name", location, error: "the frontmatter has no name" } };
  return {
    skill: { name: parsed.name, description: parsed.description ?? "", location, dir: path.dirname(location), content: parsed.body },
  };
}

/** `items.map(fn)` with at most `limit` calls in flight, results in input order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
