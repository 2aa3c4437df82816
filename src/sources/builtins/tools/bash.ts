import { stat } from "node:fs/promises";
import type { BuiltinEnv } from "../common/env.js";
import { runInGroup, type GroupRunOptions } from "../shell/process-group.js";
import { bwrapArgs } from "../shell/sandbox.js";
import { BuiltinError, builtinTool, fail, ok, optionalString, stringArg } from "../common/tool.js";

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * `bash`: one shell command in the workspace, in its own process group, with a scrubbed
 * environment and capped output. Non-zero exit and timeout are `isError` results.
 */
export function bashTool(env: BuiltinEnv) {
  return builtinTool(
    {
      name: "bash",
      description:
        "Run a shell command in the workspace and return its combined stdout+stderr. " +
        "workdir is relative to the workspace. A non-zero exit code or a timeout is an error. " +
        `Output beyond ${env.limits.outputLimitBytes} bytes is truncated in the middle.`,
      inputSchema: {
        type: "object",
        properties: {
          command: { type: "string", description: "The shell command to run" },
          workdir: { type: "string", description: "Working directory, relative to the workspace (default: the workspace root)" },
          timeout: { type: "number", description: "Timeout in milliseconds (default 60000)" },
          description: { type: "string", description: "Human-readable description of the command" },
        },
        required: ["command"],
        additionalProperties: false,
      },
      async run(args, ctx) {
        const command = stringArg(args, "command");
        if (command.trim() === "") throw new BuiltinError("command must not be empty");
        const cwd = await env.workspace.resolve(optionalString(args, "workdir"));
        const st = await stat(cwd);
        if (!st.isDirectory()) throw new BuiltinError(`workdir "${env.workspace.display(cwd)}" is not a directory`);
        const asked = typeof args.timeout === "number" && args.timeout > 0 ? Math.ceil(args.timeout) : DEFAULT_TIMEOUT_MS;
        // The caller's remaining budget wins: past it the REST layer has answered 504 anyway.
        const timeoutMs = ctx.timeout && ctx.timeout > 0 ? Math.min(asked, ctx.timeout) : asked;

        const r = await runInGroup(
          {
            shell: env.shell,
            command,
            cwd,
            timeoutMs,
            outputLimitBytes: env.limits.outputLimitBytes,
            ...confinement(env, cwd),
            ...(ctx.signal ? { signal: ctx.signal } : {}),
          },
          env.processes,
        );

        if (r.aborted && ctx.signal?.aborted) throw ctx.signal.reason;
        const meta = { exitCode: r.exitCode, ...(r.signal ? { signal: r.signal } : {}), truncated: r.truncated, timedOut: r.timedOut };
        const sep = r.output === "" || r.output.endsWith("\n") ? "" : "\n";
        if (r.timedOut) return fail(`${r.output}${sep}bash: command timed out after ${timeoutMs} ms and was killed`, meta);
        if (r.exitCode === 0) return ok(r.output, meta);
        const why = r.exitCode === null ? `was killed by ${r.signal ?? "a signal"}` : `exited with code ${r.exitCode}`;
        return fail(`${r.output}${sep}bash: command ${why}`, meta);
      },
    },
    env.workspace,
  );
}

/**
 * How the command is confined: started through bwrap (its own namespaces, the workspace the
 * only writable host directory, `/tmp` its own), as another user, or neither.
 */
function confinement(env: BuiltinEnv, cwd: string): Pick<GroupRunOptions, "env" | "launcher" | "runAs"> {
  const p = env.protection;
  if (p.kind === "none") return { env: env.shellEnv };
  if (p.kind === "runAs") return { env: env.shellEnv, runAs: p.runAs };
  // The host's TMPDIR is not mounted in the sandbox: its own /tmp is.
  const shellEnv = "TMPDIR" in env.shellEnv ? { ...env.shellEnv, TMPDIR: "/tmp" } : env.shellEnv;
  return {
    env: shellEnv,
    launcher: [p.bwrap, ...bwrapArgs(p.baseArgs, env.workspace.root, cwd)],
    ...(p.runAs ? { runAs: p.runAs } : {}),
  };
}
