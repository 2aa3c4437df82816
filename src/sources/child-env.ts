/**
 * The environment the sources give the processes they start (bash commands, stdio MCP
 * servers). By default a child gets only what any program needs to run — not the service's
 * environment, which holds every `${VAR}` secret of the config (API keys, upstream tokens).
 */

/**
 * Passed on from the service when set: where programs are (PATH), a home (HOME), the locale
 * (LANG), and where temporary files go (TMPDIR: in a container whose only writable directory
 * is not /tmp, a child without it cannot write a temporary file). None of them is a secret.
 */
const POSIX_NAMES = ["PATH", "HOME", "LANG", "TMPDIR"] as const;

/** On Windows a process does not even start without its system variables (the MCP SDK's own list). */
const WINDOWS_NAMES = [
  "APPDATA",
  "HOMEDRIVE",
  "HOMEPATH",
  "LOCALAPPDATA",
  "PATH",
  "PROCESSOR_ARCHITECTURE",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "TEMP",
  "TMP",
  "USERNAME",
  "USERPROFILE",
  "PROGRAMFILES",
] as const;

/** The harmless variables of `source` a child gets by default (only those that are set). */
function minimalEnv(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const names: readonly string[] = process.platform === "win32" ? WINDOWS_NAMES : POSIX_NAMES;
  const env: Record<string, string> = {};
  for (const name of names) {
    const v = source[name];
    if (v !== undefined) env[name] = v;
  }
  return env;
}

/**
 * A child's whole environment: {@link minimalEnv}, or the service's entire environment when
 * the config says `inheritEnv: true`, and on top of either the variables its config names.
 */
export function childEnv(
  extra: Readonly<Record<string, string>>,
  inheritEnv = false,
  source: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const base: Record<string, string> = {};
  if (inheritEnv) {
    for (const [k, v] of Object.entries(source)) if (v !== undefined) base[k] = v;
  } else {
    Object.assign(base, minimalEnv(source));
  }
  return { ...base, ...extra };
}
