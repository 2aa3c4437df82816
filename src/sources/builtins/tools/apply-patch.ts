import { randomBytes } from "node:crypto";
import { chmod, mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { BuiltinEnv } from "../common/env.js";
import { applyChunks } from "../patch/apply.js";
import { parsePatch } from "../patch/parse.js";
import { readTextFile } from "../workspace/text-file.js";
import { BuiltinError, builtinTool, ok, stringArg } from "../common/tool.js";

/**
 * `apply_patch`: opencode's patch grammar, all or nothing. Every path is checked and every new
 * file content computed in memory first; the filesystem is touched only when all hunks matched.
 */
export function applyPatchTool(env: BuiltinEnv) {
  const ws = env.workspace;
  return builtinTool(
    {
      name: "apply_patch",
      description:
        'Apply a patch to files of the workspace: "*** Begin Patch", then "*** Add File: p" (lines prefixed +), ' +
        '"*** Update File: p" (optional "*** Move to: q", then @@ hunks of " ", "-", "+" lines) or "*** Delete File: p" ' +
        'sections, then "*** End Patch". Atomic: if any hunk does not match, no file is changed.',
      inputSchema: {
        type: "object",
        properties: {
          patchText: { type: "string", description: "The full patch text, from *** Begin Patch to *** End Patch" },
        },
        required: ["patchText"],
        additionalProperties: false,
      },
      async run(args) {
        const ops = parsePatch(stringArg(args, "patchText"));
        if (ops.length === 0) throw new BuiltinError("the patch contains no file operations");

        // Staged state: absolute path → new content, or null for "deleted".
        const staged = new Map<string, string | null>();
        const current = async (abs: string): Promise<string | undefined> => {
          if (staged.has(abs)) return staged.get(abs) ?? undefined;
          const st = await stat(abs).catch(() => undefined);
          if (!st) return undefined;
          return readTextFile(abs, ws, env.limits.maxFileBytes);
        };
        const exists = async (abs: string): Promise<boolean> =>
          staged.has(abs)
            ? staged.get(abs) !== null
            : stat(abs).then(
                () => true,
                () => false,
              );
        const summary: string[] = [];
        for (const op of ops) {
          const abs = await ws.resolve(op.path);
          const shown = ws.display(abs);
          if (op.type === "add") {
            if (await exists(abs)) throw new BuiltinError(`cannot add ${shown}: it already exists`);
            staged.set(abs, op.content);
            summary.push(`A ${shown}`);
          } else if (op.type === "delete") {
            if (!(await exists(abs))) throw new BuiltinError(`cannot delete ${shown}: no such file`);
            if (!staged.has(abs) && (await stat(abs)).isDirectory()) throw new BuiltinError(`cannot delete ${shown}: it is a directory`);
            staged.set(abs, null);
            summary.push(`D ${shown}`);
          } else {
            const text = await current(abs);
            if (text === undefined) throw new BuiltinError(`cannot update ${shown}: no such file`);
            const next = applyChunks(text, op.chunks, shown);
            if (op.moveTo === undefined) {
              staged.set(abs, next);
              summary.push(`M ${shown}`);
            } else {
              const dest = await ws.resolve(op.moveTo);
              if (dest !== abs && (await exists(dest)))
                throw new BuiltinError(`cannot move ${shown} to ${ws.display(dest)}: it already exists`);
              staged.set(abs, null);
              staged.set(dest, next);
              summary.push(`M ${ws.display(dest)} (moved from ${shown})`);
            }
          }
        }
        await commit(staged);
        return ok(`Success. Updated the following files:\n${summary.join("\n")}`, { files: summary.length });
      },
    },
    ws,
  );
}

/**
 * Writes staged contents to temporary files beside their targets, then renames them into place
 * and removes deleted files. A failure while writing the temporaries leaves every target as it was.
 */
async function commit(staged: Map<string, string | null>): Promise<void> {
  const temps: { temp: string; target: string }[] = [];
  try {
    for (const [target, content] of staged) {
      if (content === null) continue;
      await mkdir(path.dirname(target), { recursive: true });
      const temp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
      await writeFile(temp, content, { encoding: "utf8", flag: "wx" });
      temps.push({ temp, target });
      const mode = await stat(target).then(
        (s) => s.mode & 0o7777,
        () => undefined,
      );
      if (mode !== undefined) await chmod(temp, mode);
    }
  } catch (err) {
    await Promise.all(temps.map((t) => rm(t.temp, { force: true })));
    throw err;
  }
  for (const { temp, target } of temps) await rename(temp, target);
  for (const [target, content] of staged) if (content === null) await rm(target, { force: true });
}
