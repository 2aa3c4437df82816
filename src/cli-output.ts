// How every command writes its answer and its exit code, shared by cli.ts and its cli-*.ts commands.

/** Writes `text` (to stdout for code 0, else stderr) and returns `code`, the exit code. */
export function print(text: string, code = 0): number {
  (code === 0 ? process.stdout : process.stderr).write(`${text}\n`);
  return code;
}

/** Writes `error: message` to stderr and returns 2, a failed command's exit code. */
export function fail(message: string): number {
  return print(`error: ${message}`, 2);
}
