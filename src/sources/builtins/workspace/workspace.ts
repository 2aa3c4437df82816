import { lstat, mkdir, readlink, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { BuiltinError } from "../common/builtin-error.js";

const MAX_SYMLINK_HOPS = 40;

/**
 * The directory every built-in path argument is confined to. A path resolves relative to the
 * root; one that leaves it — by "..", by being absolute elsewhere, or through a symbolic link
 * pointing outside — is refused with a BuiltinError naming the rule.
 */
export class Workspace {
  private constructor(
    /** The real path of the root (symbolic links resolved). */
    readonly root: string,
    private readonly configured: string,
  ) {}

  /** Creates the directory when missing and pins its real path. */
  static async open(dir: string): Promise<Workspace> {
    const configured = path.resolve(dir);
    await mkdir(configured, { recursive: true });
    const root = await realpath(configured);
    if (!(await stat(root)).isDirectory()) throw new Error("the workspace is not a directory");
    return new Workspace(root, configured);
  }

  /**
   * The real absolute path `p` names, after checking it stays inside the workspace. For a
   * path that does not exist yet, the nearest existing ancestor is resolved (so a dangling
   * or intermediate symlink cannot smuggle a write outside). Empty ⇒ the root.
   */
  async resolve(p: string | undefined): Promise<string> {
    const input = p ?? "";
    if (input.includes("\0")) throw new BuiltinError(`refused: path contains a NUL byte`);
    const lexical = path.resolve(this.root, input);
    const absolute = path.isAbsolute(input);
    if (!isInside(this.root, lexical) && !(absolute && isInside(this.configured, lexical))) {
      throw new BuiltinError(
        absolute
          ? `refused: absolute path "${input}" is outside the workspace (paths must stay inside the workspace)`
          : `refused: path "${input}" climbs out of the workspace with ".." (paths must stay inside the workspace)`,
      );
    }
    const unaliased = isInside(this.root, lexical) ? lexical : path.join(this.root, path.relative(this.configured, lexical));
    const real = await realpathLoose(unaliased, 0);
    if (!isInside(this.root, real)) {
      throw new BuiltinError(`refused: path "${input}" resolves through a symbolic link to outside the workspace`);
    }
    return real;
  }

  /** True when a real absolute path lies inside the workspace. */
  contains(abs: string): boolean {
    return isInside(this.root, abs);
  }

  /** A path as callers see it: relative to the root, "/"-separated, "." for the root itself. */
  display(abs: string): string {
    if (!isInside(this.root, abs)) return path.basename(abs);
    return path.relative(this.root, abs).split(path.sep).join("/") || ".";
  }
}

function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === "" || (!rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel));
}

/** realpath that also works for paths that do not exist yet, following dangling links too. */
async function realpathLoose(p: string, hops: number): Promise<string> {
  try {
    return await realpath(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
  }
  const st = await lstat(p).catch(() => undefined);
  if (st?.isSymbolicLink()) {
    if (hops >= MAX_SYMLINK_HOPS) throw new BuiltinError("refused: too many levels of symbolic links");
    const target = await readlink(p);
    return realpathLoose(path.resolve(path.dirname(p), target), hops + 1);
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  return path.join(await realpathLoose(parent, hops), path.basename(p));
}
