import { stat } from "node:fs/promises";
import path from "node:path";
import type { BuiltinEnv } from "../common/env.js";
import { runGrepWorker } from "./grep-worker.js";
import { confinedPattern, listFiles } from "../workspace/list-files.js";
import { capLines } from "../common/output-cap.js";
import { BuiltinError, builtinTool, ok, optionalCount, optionalString, stringArg } from "../common/tool.js";

const DEFAULT_LIMIT = 100;
const MAX_LINE_CHARS = 2_000;
const SEARCH_BUDGET_MS = 30_000;

/**
 * `grep`: lines of workspace files matching a regex, as `file:line:text` with workspace-relative
 * paths, sorted by file then line. Binary files and files over the size cap are skipped.
 */
export function grepTool(env: BuiltinEnv) {
  return builtinTool(
    {
      name: "grep",
      description:
        "Search file contents of the workspace by regular expression (JavaScript syntax, matched per line). " +
        "Output is file:line:text matches with workspace-relative paths, capped at limit (default 100). " +
        `Binary files and files over ${env.limits.maxFileBytes} bytes are skipped.`,
      inputSchema: {
        type: "object",
        properties: {
          pattern: { type: "string", description: "Regular expression to search for" },
          path: { type: "string", description: "Directory (or file) to search, relative to the workspace (default: the workspace root)" },
          include: { type: "string", description: 'Glob filter for file names, e.g. "*.ts"' },
          limit: { type: "number", description: "Maximum number of matches (default 100)" },
        },
        required: ["pattern"],
        additionalProperties: false,
      },
      async run(args, ctx) {
        const pattern = stringArg(args, "pattern");
        try {
          new RegExp(pattern);
        } catch (err) {
          throw new BuiltinError(`invalid regular expression: ${(err as Error).message}`);
        }
        const include = optionalString(args, "include");
        const limit = optionalCount(args, "limit") ?? DEFAULT_LIMIT;
        const target = await env.workspace.resolve(optionalString(args, "path"));
        const glob = confinedPattern(include ?? "*", "include");

        let files: string[];
        let scanCut = false;
        if ((await stat(target)).isDirectory()) {
          ({ files, scanCut } = await listFiles(env.workspace, target, glob, env.limits.maxScanFiles, ctx.signal));
        } else {
          files = [target];
        }

        const budget = ctx.timeout && ctx.timeout > 0 ? Math.min(ctx.timeout, SEARCH_BUDGET_MS) : SEARCH_BUDGET_MS;
        const found = await runGrepWorker(
          {
            files,
            root: env.workspace.root,
            pattern,
            maxMatches: limit + 1,
            maxFileBytes: env.limits.maxFileBytes,
            maxLineChars: MAX_LINE_CHARS,
          },
          budget,
          ctx.signal,
        );

        const hits = found.hits.slice(0, limit);
        const lines = hits.map((h) => `${env.workspace.display(path.resolve(h.file))}:${h.line}:${h.text}`);
        const notes: string[] = [];
        if (found.hits.length > limit) notes.push(`[more matches not shown; the limit is ${limit}]`);
        if (found.skippedLarge > 0) notes.push(`[${found.skippedLarge} file(s) over ${env.limits.maxFileBytes} bytes skipped]`);
        if (scanCut) notes.push(`[search stopped after scanning ${env.limits.maxScanFiles} entries; narrow the path or include]`);
        return ok(capLines([...lines, ...notes], env.limits.outputLimitBytes), {
          count: hits.length,
          truncated: found.hits.length > limit,
          skippedLarge: found.skippedLarge,
          skippedBinary: found.skippedBinary,
          scanCut,
        });
      },
    },
    env.workspace,
  );
}
