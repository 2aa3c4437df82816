import { readFile, stat } from "node:fs/promises";
import type { BuiltinEnv } from "../common/env.js";
import { streamLineWindow } from "../workspace/line-window.js";
import { decodeText } from "../workspace/text-file.js";
import { BuiltinError, builtinTool, ok, optionalCount, stringArg } from "../common/tool.js";

/**
 * `read`: a UTF-8 text file of the workspace, whole or as a window of lines. A file over the
 * size cap can only be read in windows, and those are streamed, never loaded whole.
 */
export function readTool(env: BuiltinEnv) {
  const max = env.limits.maxFileBytes;
  return builtinTool(
    {
      name: "read",
      description:
        "Read a UTF-8 text file of the workspace. With offset (1-based line) and/or limit (lines), " +
        `return that window of lines. A file over ${max} bytes can only be read in windows.`,
      inputSchema: {
        type: "object",
        properties: {
          path: { type: "string", description: "Path to the file to read, relative to the workspace" },
          offset: { type: "number", description: "1-based line to start from" },
          limit: { type: "number", description: "Maximum number of lines to read" },
        },
        required: ["path"],
        additionalProperties: false,
      },
      async run(args, ctx) {
        const abs = await env.workspace.resolve(stringArg(args, "path"));
        const shown = env.workspace.display(abs);
        const offset = optionalCount(args, "offset");
        const limit = optionalCount(args, "limit");
        const st = await stat(abs);
        if (st.isDirectory()) throw new BuiltinError(`"${shown}" is a directory; use glob to list it`);
        if (offset === undefined && limit === undefined) {
          if (st.size > max) {
            throw new BuiltinError(
              `"${shown}" is ${st.size} bytes, over the read limit of ${max} bytes; pass offset and limit to read a window of lines`,
            );
          }
          return ok(decodeText(await readFile(abs, { signal: ctx.signal }), shown), { bytes: st.size });
        }

        const first = offset ?? 1;
        const count = limit ?? Number.MAX_SAFE_INTEGER;
        let lines: string[];
        let truncated = false;
        let total: number | undefined;
        if (st.size <= max) {
          const all = decodeText(await readFile(abs, { signal: ctx.signal }), shown).split("\n");
          total = all.length;
          lines = all.slice(first - 1, first - 1 + count);
        } else {
          const w = await streamLineWindow(abs, first, count, max, ctx.signal).catch((err: unknown) => {
            throw err instanceof BuiltinError ? new BuiltinError(`"${shown}" is a binary file`) : err;
          });
          lines = w.lines.map((b) => decodeText(b, shown));
          truncated = w.truncated;
          total = w.total;
        }
        if (lines.length === 0 && total !== undefined && first > total) {
          throw new BuiltinError(`offset ${first} is past the end of "${shown}" (${total} lines)`);
        }
        const note = truncated ? `\n[window cut at the ${max}-byte limit; continue with offset ${first + lines.length}]` : "";
        return ok(lines.join("\n") + note, { offset: first, lines: lines.length, truncated });
      },
    },
    env.workspace,
  );
}
