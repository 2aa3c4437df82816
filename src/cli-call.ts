// `toolnexus call`: one tool run in this process, or submitted to a running server with --async.
import type { LoadedConfig } from "./config/load.js";
import { isToolnexusError } from "./core/errors.js";
import type { Progress } from "./core/types.js";
import { toolkitOf } from "./cli-config.js";
import { HELP } from "./cli-help.js";
import { fail, print } from "./cli-output.js";

/** Runs tool `name` of the config once and prints its output; exit 0 ok, 1 isError, 2 failed. */
export async function call(
  loaded: LoadedConfig,
  name: string | undefined,
  argsJson: string | undefined,
  timeout: string | undefined,
  stream = false,
): Promise<number> {
  if (!name) return print(HELP.call ?? "", 2);
  const args = parseArgsJson(argsJson);
  if (typeof args === "string") return fail(args);
  const ms = Number(timeout ?? loaded.config.server.timeoutMs);
  if (!Number.isInteger(ms) || ms <= 0) return fail("--timeout must be a positive whole number of milliseconds");
  const tk = await toolkitOf(loaded);
  const signal = AbortSignal.timeout(ms);
  // A timeout is a failure (2), as REST's 504, even when the tool turned its abort into an isError result.
  const timedOut = () => fail(`${name} timed out after ${ms} ms`);
  try {
    const onProgress = stream ? (p: Progress) => console.error(progressLine(p)) : undefined;
    const result = await tk.execute(name, args, { signal, timeout: ms, ...(onProgress ? { onProgress } : {}) });
    if (signal.aborted) return timedOut();
    if (result.isError) console.error(result.output);
    else console.log(result.output);
    if (result.metadata?.pending) console.error(JSON.stringify({ pending: result.metadata.pending }));
    return result.isError ? 1 : 0;
  } catch (err) {
    if (signal.aborted) return timedOut();
    if (isToolnexusError(err) && err.errors)
      return fail(`${err.message}: ${err.errors.map((e) => `${e.pointer || "/"} ${e.message}`).join("; ")}`);
    return fail((err as Error).message);
  } finally {
    await tk.close();
  }
}

/** The `--args` JSON object, or why it is not one. */
function parseArgsJson(argsJson: string | undefined): Record<string, unknown> | string {
  let args: unknown;
  try {
    args = JSON.parse(argsJson ?? "{}");
  } catch (err) {
    return `--args is not valid JSON: ${(err as Error).message}`;
  }
  return typeof args === "object" && args !== null && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : "--args must be a JSON object";
}

/** One progress report as a line: `progress 3/5 message`. */
function progressLine({ progress, total, message }: Progress): string {
  return `progress ${progress}${total === undefined ? "" : `/${total}`}${message ? ` ${message}` : ""}`;
}

/** `toolnexus call --async`: submits the call to the server at `url` as an execution. */
export async function callAsync(
  name: string | undefined,
  argsJson: string | undefined,
  timeout: string | undefined,
  url: string | undefined,
): Promise<number> {
  if (!name) return print(HELP.call ?? "", 2);
  if (!url) return fail("--async submits to a running server: pass --url URL or set TOOLNEXUS_URL");
  const args = parseArgsJson(argsJson);
  if (typeof args === "string") return fail(args);
  const { submitExecution } = await import("./cli-async.js");
  return submitExecution(url, name, args, timeout === undefined ? undefined : Number(timeout));
}
