import type { EgressConfig } from "../../../config/schema/index.js";
import type { Logger, Tool } from "../../../core/types.js";
import type { ProcessGroups } from "../shell/process-group.js";
import type { Protection } from "../shell/protection.js";
import type { Workspace } from "../workspace/workspace.js";

/** Size and count caps shared by the built-in tools. */
export interface BuiltinLimits {
  /** Cap on a tool's output (bash stdout+stderr, grep/glob listings, a fetched body). */
  outputLimitBytes: number;
  /** Files larger than this are refused by read (unless windowed), skipped by grep, refused by edit/apply_patch. */
  maxFileBytes: number;
  /** grep/glob stop walking after this many files and say so. */
  maxScanFiles: number;
}

/** Everything a built-in tool factory may use. One instance per builtin source. */
export interface BuiltinEnv {
  /** Every path argument resolves inside it. */
  workspace: Workspace;
  limits: BuiltinLimits;
  /** The whole environment a bash child sees (PATH, HOME, LANG and `builtins.env`), nothing else. */
  shellEnv: Readonly<Record<string, string>>;
  /** Absolute path of the shell bash runs as `<shell> -c <command>`. */
  shell: string;
  /** What bash commands run under: the bubblewrap sandbox, another user (`builtins.runAs`), or nothing. */
  protection: Protection;
  /** The config's `egress:` section, for webfetch's egress guard. */
  egress: EgressConfig;
  /** Live bash process groups, killed when the source closes. */
  processes: ProcessGroups;
  logger: Logger;
}

/** Builds one built-in tool. The registry holds one per tool name. */
export type BuiltinFactory = (env: BuiltinEnv) => Tool;
