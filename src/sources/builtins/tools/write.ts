import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { BuiltinEnv } from "../common/env.js";
import { builtinTool, ok, stringArg } from "../common/tool.js";

/** `write`: create or overwrite a file of the workspace, creating parent directories. */
export function writeTool(env: BuiltinEnv) {
  return builtinTool(
    {
      name: "write",
      description: "Write content to a file of the workspace (create or overwrite), creating parent directories.",
      inputSchema: {
        type: "object",
        properties: {
          path: { type: "string", description: "Path to write to, relative to the workspace" },
          content: { type: "string", description: "Content to write" },
        },
        required: ["path", "content"],
        additionalProperties: false,
      },
      async run(args, ctx) {
        const abs = await env.workspace.resolve(stringArg(args, "path"));
        const content = stringArg(args, "content");
        await mkdir(path.dirname(abs), { recursive: true });
        await writeFile(abs, content, { encoding: "utf8", signal: ctx.signal });
        const bytes = Buffer.byteLength(content, "utf8");
        return ok(`Wrote ${bytes} bytes to ${env.workspace.display(abs)}`, { bytes });
      },
    },
    env.workspace,
  );
}
