import { access, constants } from "node:fs/promises";
import { ToolListSource, type SourceContext } from "../../core/source.js";
import { childEnv } from "../child-env.js";
import type { BuiltinEnv } from "./env.js";
import { selectTools, type BuiltinsOptions } from "./options.js";
import { ProcessGroups } from "./process-group.js";
import { BUILTIN_FACTORIES, CONTRACT_BUILTIN_NAMES } from "./registry.js";
import { Workspace } from "./workspace.js";

/**
 * The built-in tools confined to one workspace directory. Build creates the
 * workspace when missing; close kills every bash process group still running.
 */
export class BuiltinSource extends ToolListSource {
  readonly kind = "builtin" as const;
  readonly name = "builtins";
  private readonly processes = new ProcessGroups();

  constructor(private readonly opts: BuiltinsOptions) {
    super();
  }

  async build(ctx: SourceContext): Promise<void> {
    try {
      const workspace = await Workspace.open(this.opts.workspace);
      const env: BuiltinEnv = {
        workspace,
        limits: this.opts.limits,
        shellEnv: shellEnv(workspace.root, this.opts.env, this.opts.inheritEnv === true, ctx),
        shell: this.opts.shell ?? (await defaultShell()),
        ...(this.opts.runAs ? { runAs: this.opts.runAs } : {}),
        egress: this.opts.egress,
        processes: this.processes,
        logger: ctx.logger,
      };
      const all = BUILTIN_FACTORIES.map((make) => make(env));
      this.loaded = selectTools(all, this.opts.tools, CONTRACT_BUILTIN_NAMES, ctx.logger);
      this.state = "connected";
      ctx.logger.info({ workspace: workspace.root, tools: this.loaded.map((t) => t.name) }, "builtins ready");
    } catch (err) {
      this.failed(`cannot prepare the workspace: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      ctx.logger.error({ err: this.error }, "builtins failed");
    }
  }

  override async close(): Promise<void> {
    await super.close();
    await this.processes.killAll();
  }
}

/**
 * The whole environment of a bash child: PATH, HOME (the workspace), LANG, TMPDIR, and the
 * variables `builtins.env` names. Nothing else of the service's environment (its keys,
 * tokens) leaks in, unless `builtins.inheritEnv` asks for all of it.
 */
function shellEnv(home: string, names: readonly string[], inheritEnv: boolean, ctx: SourceContext): Record<string, string> {
  const env: Record<string, string> = {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
    ...childEnv({ HOME: home }, inheritEnv),
  };
  const missing: string[] = [];
  for (const name of names) {
    const v = process.env[name];
    if (v === undefined) missing.push(name);
    else env[name] = v;
  }
  // Names only: the values may be secrets.
  if (missing.length > 0) ctx.logger.warn({ missing }, "builtins.env names variables the service does not have");
  return env;
}

async function defaultShell(): Promise<string> {
  return access("/bin/bash", constants.X_OK).then(
    () => "/bin/bash",
    () => "/bin/sh",
  );
}
