import { writeFile } from "node:fs/promises";
import type { BuiltinEnv } from "../common/env.js";
import { readTextFile } from "../workspace/text-file.js";
import { BuiltinError, builtinTool, ok, stringArg } from "../common/tool.js";

/** `edit`: exact-string replacement in one file of the workspace. */
export function editTool(env: BuiltinEnv) {
  return builtinTool(
    {
      name: "edit",
      description:
        "Replace an exact string in a file of the workspace. By default oldString must occur exactly once; " +
        "replaceAll replaces every occurrence.",
      inputSchema: {
        type: "object",
        properties: {
          path: { type: "string", description: "Path to the file to edit, relative to the workspace" },
          oldString: { type: "string", description: "Exact string to replace" },
          newString: { type: "string", description: "Replacement string" },
          replaceAll: { type: "boolean", description: "Replace all occurrences" },
        },
        required: ["path", "oldString", "newString"],
        additionalProperties: false,
      },
      async run(args) {
        const abs = await env.workspace.resolve(stringArg(args, "path"));
        const shown = env.workspace.display(abs);
        const oldString = stringArg(args, "oldString");
        const newString = stringArg(args, "newString");
        if (oldString === "") throw new BuiltinError("oldString must not be empty (use write to create a file)");
        if (oldString === newString) throw new BuiltinError("oldString and newString are identical");
        const text = await readTextFile(abs, env.workspace, env.limits.maxFileBytes);
        const parts = text.split(oldString);
        const count = parts.length - 1;
        if (count === 0) throw new BuiltinError(`oldString not found in "${shown}"`);
        if (count > 1 && args.replaceAll !== true) {
          throw new BuiltinError(
            `oldString occurs ${count} times in "${shown}"; add surrounding context to make it unique, or set replaceAll`,
          );
        }
        // split/join, not String.replace: "$&" and friends in newString must stay literal.
        await writeFile(abs, parts.join(newString), "utf8");
        return ok(`Edited ${shown}: ${count} replacement${count === 1 ? "" : "s"}`, { replacements: count });
      },
    },
    env.workspace,
  );
}
