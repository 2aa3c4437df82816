import { applyPatchTool } from "./apply-patch.js";
import { bashTool } from "./bash.js";
import { editTool } from "./edit.js";
import type { BuiltinFactory } from "./env.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { questionTool } from "./question.js";
import { readTool } from "./read.js";
import { todowriteTool } from "./todowrite.js";
import { webfetchTool } from "./webfetch.js";
import { writeTool } from "./write.js";

/**
 * Every built-in tool, in the contract's order (§4A): bash, read, write, edit, grep, glob,
 * webfetch, question, apply_patch, todowrite. Each factory gets the source's BuiltinEnv and
 * returns one `source: "builtin"` Tool; `builtins.tools` filters by the tool's name.
 */
export const BUILTIN_FACTORIES: readonly BuiltinFactory[] = [
  bashTool,
  readTool,
  writeTool,
  editTool,
  grepTool,
  globTool,
  webfetchTool,
  questionTool,
  applyPatchTool,
  todowriteTool,
];

/** The names the contract defines, including those not in this build (for config warnings). */
export const CONTRACT_BUILTIN_NAMES: readonly string[] = [
  "bash", "read", "write", "edit", "grep", "glob", "webfetch", "question", "apply_patch", "todowrite",
];

/** Built-ins that run commands or change files: what an unauthenticated deployment must not expose. */
export const COMMAND_AND_WRITE_BUILTINS: readonly string[] = ["bash", "write", "edit", "apply_patch"];
