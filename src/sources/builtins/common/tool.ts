import { isToolnexusError } from "../../../core/errors.js";
import type { JSONSchema, Tool, ToolContext, ToolResult } from "../../../core/types.js";
import { BuiltinError } from "./builtin-error.js";
import type { Workspace } from "../workspace/workspace.js";

/** Re-exported beside builtinTool: every built-in throws it. */
export { BuiltinError };

/** What {@link builtinTool} turns into a Tool. */
export interface BuiltinDefinition {
  name: string;
  description: string;
  inputSchema: JSONSchema;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
}

/** A successful result. */
export const ok = (output: string, metadata?: Record<string, unknown>): ToolResult =>
  metadata ? { output, isError: false, metadata } : { output, isError: false };

/** A model-facing failure. */
export const fail = (output: string, metadata?: Record<string, unknown>): ToolResult =>
  metadata ? { output, isError: true, metadata } : { output, isError: true };

const FS_ERRORS: Record<string, string> = {
  ENOENT: "no such file or directory",
  EISDIR: "is a directory",
  ENOTDIR: "not a directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EEXIST: "already exists",
  ENOTEMPTY: "directory not empty",
  ELOOP: "too many levels of symbolic links",
  ENAMETOOLONG: "file name too long",
  ENOSPC: "no space left on device",
  EROFS: "read-only file system",
  EFBIG: "file too large",
};

/**
 * Builds a `source: "builtin"` Tool. BuiltinErrors and ordinary filesystem errors become
 * `isError` results naming the path relative to the workspace (the host layout stays private);
 * an abort rethrows the signal's reason so the REST layer answers 504/499.
 */
export function builtinTool(def: BuiltinDefinition, workspace?: Workspace): Tool {
  return {
    name: def.name,
    description: def.description,
    inputSchema: def.inputSchema,
    source: "builtin",
    async execute(args, ctx = {}) {
      try {
        return await def.run(args ?? {}, ctx);
      } catch (err) {
        if (ctx.signal?.aborted) throw ctx.signal.reason;
        if (isToolnexusError(err)) throw err;
        if (err instanceof BuiltinError) return fail(`${def.name}: ${err.message}`);
        const code = (err as NodeJS.ErrnoException | undefined)?.code;
        if (typeof code === "string" && code in FS_ERRORS) {
          const p = (err as NodeJS.ErrnoException).path;
          const where = p && workspace ? `${workspace.display(p)}: ` : "";
          return fail(`${def.name}: ${where}${FS_ERRORS[code]}`);
        }
        throw err;
      }
    },
  };
}

/** A required string argument. */
export function stringArg(args: Record<string, unknown>, key: string): string {
  const v = args[key];
  if (typeof v !== "string") throw new BuiltinError(`${key} must be a string`);
  return v;
}

/** An optional string argument (absent or empty ⇒ undefined). */
export function optionalString(args: Record<string, unknown>, key: string): string | undefined {
  const v = args[key];
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string") throw new BuiltinError(`${key} must be a string`);
  return v;
}

/** An optional positive integer argument (fractions truncated; absent ⇒ undefined). */
export function optionalCount(args: Record<string, unknown>, key: string): number | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v)) throw new BuiltinError(`${key} must be a number`);
  const n = Math.trunc(v);
  if (n < 1) throw new BuiltinError(`${key} must be at least 1`);
  return n;
}
