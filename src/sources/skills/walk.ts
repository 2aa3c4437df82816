import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";

/** What a walked entry turned out to be once symlinks are followed. */
type EntryKind = "file" | "dir" | "other" | "missing";

/** One non-directory entry (or a `leaf`-named entry of any kind) met by {@link walkTree}. */
export interface WalkEntry {
  /** Absolute path as reached from the root: symlinks below the root are not resolved. */
  path: string;
  name: string;
  kind: EntryKind;
}

/** Options of {@link walkTree}. */
export interface WalkOptions {
  /** Real paths of directories already walked; shared across calls to walk each tree once. */
  visited?: Set<string>;
  /** Directory names never entered. */
  skipDirs?: ReadonlySet<string>;
  /** Entry names yielded as they are, never entered even when they are directories. */
  leaves?: ReadonlySet<string>;
  /** Told about a directory that could not be listed; the walk goes on without it. */
  onDirError?: (dir: string, err: NodeJS.ErrnoException) => void;
  signal?: AbortSignal;
}

/** Plain UTF-16 code-unit order: the same on every filesystem and locale. */
export const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Depth-first walk of `root` in sorted name order, following symlinked directories and files.
 * Each directory is entered once per real path, which also breaks symlink cycles. Yields
 * every entry that is not a directory to enter; stop early by breaking out of the loop.
 */
export async function* walkTree(root: string, opts: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const visited = opts.visited ?? new Set<string>();
  yield* walkDir(root, opts, visited);
}

async function* walkDir(dir: string, opts: WalkOptions, visited: Set<string>): AsyncGenerator<WalkEntry> {
  opts.signal?.throwIfAborted();
  let entries: Dirent[];
  try {
    const real = await realpath(dir);
    if (visited.has(real)) return;
    visited.add(real);
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    opts.onDirError?.(dir, err as NodeJS.ErrnoException);
    return;
  }
  entries.sort((a, b) => byCodeUnit(a.name, b.name));
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    const kind = await kindOf(entry, full);
    if (opts.leaves?.has(entry.name) || kind !== "dir") {
      yield { path: full, name: entry.name, kind };
    } else if (!opts.skipDirs?.has(entry.name)) {
      yield* walkDir(full, opts, visited);
    }
  }
}

/** The entry's kind, following a symlink (a dangling one is `missing`). */
async function kindOf(entry: Dirent, full: string): Promise<EntryKind> {
  if (!entry.isSymbolicLink()) {
    return entry.isDirectory() ? "dir" : entry.isFile() ? "file" : "other";
  }
  try {
    const s = await stat(full);
    return s.isDirectory() ? "dir" : s.isFile() ? "file" : "other";
  } catch {
    return "missing";
  }
}
