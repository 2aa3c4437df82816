import { access, constants } from "node:fs/promises";
import { ToolListSource, type SourceContext, type SourceStatus } from "../../core/source.js";
import { silentLogger, type Tool } from "../../core/types.js";
import { childEnv } from "../child-env.js";
import type { BuiltinEnv } from "./common/env.js";
import { selectTools, type BuiltinsOptions } from "./options.js";
import { ProcessGroups } from "./shell/process-group.js";
import { describeProtection, ProtectionError, resolveProtection, type Protection } from "./shell/protection.js";
import { PROCESS_BUILTINS } from "./names.js";
import { BUILTIN_FACTORIES, CONTRACT_BUILTIN_NAMES } from "./registry.js";
import { Workspace } from "./workspace/workspace.js";

/**
 * The built-in tools confined to one workspace directory. Build creates the
 * workspace when missing; close kills every bash process group still running.
 */
export class BuiltinSource extends ToolListSource {
  readonly kind = "builtin" as const;
  readonly name = "builtins";
  private readonly processes = new ProcessGroups();
  /** The protection in force, as `/status` shows it; unset while no built-in runs commands. */
  private sandbox?: string;

  constructor(private readonly opts: BuiltinsOptions) {
    super();
  }

  async build(ctx: SourceContext): Promise<void> {
    try {
      const workspace = await Workspace.open(this.opts.workspace);
      const stubs = CONTRACT_BUILTIN_NAMES.map((name) => ({ name }) as Tool);
      const runsCommands = selectTools(stubs, this.opts.tools, CONTRACT_BUILTIN_NAMES, silentLogger).some((t) =>
        PROCESS_BUILTINS.includes(t.name),
      );
      const protection = runsCommands ? await this.protect(workspace, ctx) : { kind: "none" as const };
      const env: BuiltinEnv = {
        workspace,
        limits: this.opts.limits,
        shellEnv: shellEnv(workspace.root, this.opts.env, this.opts.inheritEnv === true, ctx),
        shell: this.opts.shell ?? (await defaultShell()),
        protection,
        egress: this.opts.egress,
        processes: this.processes,
        logger: ctx.logger,
      };
      const all = BUILTIN_FACTORIES.map((make) => make(env));
      this.loaded = selectTools(all, this.opts.tools, CONTRACT_BUILTIN_NAMES, ctx.logger);
      this.state = "connected";
      ctx.logger.info({ workspace: workspace.root, tools: this.loaded.map((t) => t.name) }, "builtins ready");
    } catch (err) {
      const why =
        err instanceof ProtectionError
          ? err.message
          : `cannot prepare the workspace: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
      this.failed(why);
      ctx.logger.error({ err: this.error }, "builtins failed");
    }
  }

  override status(): SourceStatus {
    return { ...super.status(), ...(this.sandbox ? { sandbox: this.sandbox } : {}) };
  }

  /** Decides and announces the protection bash runs under (one log line, also in /status). */
  private async protect(workspace: Workspace, ctx: SourceContext): Promise<Protection> {
    const hide = this.opts.hide ?? [];
    const exposed = hide.filter((f) => workspace.contains(f));
    // Names of the service's own files, never their contents.
    if (exposed.length > 0)
      ctx.logger.warn({ files: exposed }, "builtins: these service files are inside the workspace, where bash can read them");
    const protection = await resolveProtection({
      sandbox: this.opts.sandbox ?? { mode: "auto", network: true },
      ...(this.opts.runAs !== undefined ? { runAs: this.opts.runAs } : {}),
      hide,
    });
    this.sandbox = describeProtection(protection);
    const line = `builtins sandbox: ${this.sandbox}`;
    if (protection.kind === "none") ctx.logger.warn(line);
    else ctx.logger.info(line);
    return protection;
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
