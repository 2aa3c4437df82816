import { applyPatchTool } from "./tools/apply-patch.js";
import { bashTool } from "./tools/bash.js";
import { editTool } from "./tools/edit.js";
import type { BuiltinFactory } from "./common/env.js";
import { globTool } from "./tools/glob.js";
import { grepTool } from "./tools/grep.js";
import { questionTool } from "./tools/question.js";
import { readTool } from "./tools/read.js";
import { todowriteTool } from "./tools/todowrite.js";
import { webfetchTool } from "./tools/webfetch.js";
import { writeTool } from "./tools/write.js";

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
