import type { JSONSchema, Tool, ToolContext, ToolResult } from "./types.js";

/** A plain function and its description: what `defineTool` turns into a Tool. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema?: JSONSchema;
  /** Whether the tool runs as an `/mcp` task (Tool.taskSupport): kept on the Tool it becomes. */
  taskSupport?: Tool["taskSupport"];
  /** A required task tool whose first question comes before its task (Tool.inputBeforeTask). */
  inputBeforeTask?: boolean;
  run(args: Record<string, unknown>, ctx: ToolContext): string | ToolResult | Promise<string | ToolResult>;
}

const EMPTY_OBJECT_SCHEMA: JSONSchema = { type: "object", properties: {} };

/**
 * Builds a `source: "native"` Tool from a function. A string return becomes the output;
 * a ToolResult is passed through; a throw becomes a model-facing `isError` result.
 */
export function defineTool(def: ToolDefinition): Tool {
  return {
    name: def.name,
    description: def.description,
    inputSchema: def.inputSchema ?? EMPTY_OBJECT_SCHEMA,
    source: "native",
    ...(def.taskSupport ? { taskSupport: def.taskSupport } : {}),
    ...(def.inputBeforeTask ? { inputBeforeTask: true } : {}),
    execute(args, ctx) {
      let out: ReturnType<ToolDefinition["run"]>;
      try {
        out = def.run(args ?? {}, ctx ?? {});
      } catch (err) {
        return Promise.resolve(errorResult(err));
      }
      // A function that answers at once is not awaited: an await is a turn of the microtask
      // queue and a promise more, on every call of the many tools that compute their answer.
      return isThenable(out) ? Promise.resolve(out).then(toResult, errorResult) : Promise.resolve(toResult(out));
    },
  };
}

const toResult = (out: string | ToolResult): ToolResult => (typeof out === "string" ? { output: out, isError: false } : out);

const errorResult = (err: unknown): ToolResult => ({ output: err instanceof Error ? err.message : String(err), isError: true });

function isThenable(v: unknown): v is PromiseLike<string | ToolResult> {
  return typeof v === "object" && v !== null && typeof (v as PromiseLike<unknown>).then === "function";
}

/** True for a value shaped like a {@link ToolDefinition}. */
export function isToolDefinition(v: unknown): v is ToolDefinition {
  return (
    typeof v === "object" && v !== null && typeof (v as ToolDefinition).run === "function" && typeof (v as ToolDefinition).name === "string"
  );
}

/** True for a value shaped like a {@link Tool}. */
export function isTool(v: unknown): v is Tool {
  return typeof v === "object" && v !== null && typeof (v as Tool).execute === "function" && typeof (v as Tool).name === "string";
}
