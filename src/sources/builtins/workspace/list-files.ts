import fs from "node:fs";
import path from "node:path";
import { glob, type GlobOptions } from "tinyglobby";
import { BuiltinError } from "../common/tool.js";
import type { Workspace } from "./workspace.js";

/** Files found under a directory, sorted, and whether the walk was cut short. */
export interface FileList {
  files: string[];
  /** The walk stopped at the scan cap: there may be more. */
  scanCut: boolean;
}

const PARENT_SEGMENT = /(^|[/\\{,])\.\.($|[/\\},])/;
const IGNORED = ["**/node_modules/**", "**/.git/**"];

/**
 * Checks a glob (glob `pattern`, grep `include`) cannot reach outside its directory, and makes a
 * pattern without "/" match at any depth, as ripgrep's --glob and the contract's ports do.
 */
export function confinedPattern(pattern: string, what: string): string {
  if (pattern.trim() === "") throw new BuiltinError(`${what} must not be empty`);
  if (path.isAbsolute(pattern) || pattern.startsWith("~")) {
    throw new BuiltinError(`refused: ${what} "${pattern}" is absolute; it must be relative to the search directory`);
  }
  if (PARENT_SEGMENT.test(pattern)) {
    throw new BuiltinError(`refused: ${what} "${pattern}" contains "..", which could leave the workspace`);
  }
  return pattern.includes("/") ? pattern : `**/${pattern}`;
}

/**
 * Lists regular files under `dir` matching `pattern` (already confined): hidden files included,
 * node_modules and .git skipped, symbolic links neither followed nor listed, the walk stopped
 * after `maxScan` directory entries or when `signal` aborts. Absolute paths, sorted.
 */
export async function listFiles(ws: Workspace, dir: string, pattern: string, maxScan: number, signal?: AbortSignal): Promise<FileList> {
  const cap = new AbortController();
  let scanned = 0;
  type ReaddirCb = (err: NodeJS.ErrnoException | null, entries: fs.Dirent[]) => void;
  const countingReaddir = (p: string, opts: { withFileTypes: true }, cb: ReaddirCb) => {
    fs.readdir(p, opts, (err, entries) => {
      if (!err) {
        scanned += entries.length;
        if (scanned > maxScan) cap.abort();
      }
      cb(err, entries);
    });
  };
  const options: GlobOptions = {
    cwd: dir,
    dot: true,
    followSymbolicLinks: false,
    expandDirectories: false,
    onlyFiles: true,
    ignore: IGNORED,
    fs: { readdir: countingReaddir as unknown as NonNullable<GlobOptions["fs"]>["readdir"] },
    signal: signal ? AbortSignal.any([signal, cap.signal]) : cap.signal,
  };
  const found = await glob(pattern, options);
  if (signal?.aborted) throw signal.reason;
  const files = found
    .map((rel) => path.resolve(dir, rel))
    // Defence in depth: the pattern check and unfollowed links already keep results inside.
    .filter((abs) => ws.contains(abs))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { files, scanCut: cap.signal.aborted };
}
