import { applyPatchTool } from "./apply-patch.js";
import { bashTool } from "./bash.js";
import { editTool } from "./edit.js";
import type { BuiltinFactory } from "./shell/env.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { questionTool } from "./question.js";
import { readTool } from "./read.js";
import { todowriteTool } from "./todowrite.js";
import { webfetchTool } from "./webfetch.js";
import { writeTool } from "./write.js";

/**
 * Every built-in tool, in catalog order: bash, read, write, edit, grep, glob,
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

export { CONTRACT_BUILTIN_NAMES } from "./names.js";
