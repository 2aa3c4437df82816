import { stat } from "node:fs/promises";
import type { BuiltinEnv } from "../common/env.js";
import { confinedPattern, listFiles } from "../workspace/list-files.js";
import { capLines } from "../common/output-cap.js";
import { BuiltinError, builtinTool, ok, optionalCount, optionalString, stringArg } from "../common/tool.js";

const DEFAULT_LIMIT = 100;

/** `glob`: files of the workspace matching a glob, as workspace-relative paths. */
export function globTool(env: BuiltinEnv) {
  return builtinTool(
    {
      name: "glob",
      description:
        'List files of the workspace matching a glob pattern (a pattern without "/" matches at any depth). ' +
        "Output is newline-joined workspace-relative paths, sorted, capped at limit (default 100).",
      inputSchema: {
        type: "object",
        properties: {
          pattern: { type: "string", description: "Glob pattern to match" },
          path: { type: "string", description: "Directory to search, relative to the workspace (default: the workspace root)" },
          limit: { type: "number", description: "Maximum number of results (default 100)" },
        },
        required: ["pattern"],
        additionalProperties: false,
      },
      async run(args, ctx) {
        const pattern = confinedPattern(stringArg(args, "pattern"), "pattern");
        const dir = await env.workspace.resolve(optionalString(args, "path"));
        if (!(await stat(dir)).isDirectory()) throw new BuiltinError(`"${env.workspace.display(dir)}" is not a directory`);
        const limit = optionalCount(args, "limit") ?? DEFAULT_LIMIT;
        const { files, scanCut } = await listFiles(env.workspace, dir, pattern, env.limits.maxScanFiles, ctx.signal);
        const shown = files.slice(0, limit).map((f) => env.workspace.display(f));
        const notes: string[] = [];
        if (files.length > limit) notes.push(`[${files.length - limit} more matches not shown; the limit is ${limit}]`);
        if (scanCut) notes.push(`[search stopped after scanning ${env.limits.maxScanFiles} entries; narrow the path or pattern]`);
        return ok(capLines([...shown, ...notes], env.limits.outputLimitBytes), { count: shown.length, total: files.length, scanCut });
      },
    },
    env.workspace,
  );
}
