import { execFile } from "node:child_process";
import { accessSync, constants, lstatSync, readdirSync, readlinkSync, statSync } from "node:fs";
import path from "node:path";

/**
 * The bubblewrap sandbox bash commands run in. A command sees the system read-only (`/usr`,
 * `/bin`, `/lib*`, `/etc` minus its secrets), a fresh `/proc` of its own PID namespace (so no
 * process of the service), a private `/tmp`, and the workspace writable at its own path —
 * nothing else of the host: not the service's files, config, pin file or audit log.
 */

/** What the sandbox needs to know besides the command. */
export interface BwrapLayout {
  /** false: an empty network namespace of its own. */
  network: boolean;
  /** Service files and directories to hide when they lie under a mounted system directory. */
  hide: readonly string[];
}

// Read-only system directories; the link-or-directory ones are mirrored as they are on the host.
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"];
// Resolver configs /etc/resolv.conf may point into.
const RESOLVER_DIRS = ["/run/systemd/resolve", "/run/resolvconf"];
// Secrets every Debian-like /etc may hold.
const ETC_SECRETS = ["/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/ssl/private", "/etc/sudoers", "/etc/sudoers.d"];
const PROBE_TIMEOUT_MS = 10_000;

/**
 * bwrap's arguments up to (not including) the workspace and the command: namespaces, system
 * mounts, the masks over secrets. Computed once per source (it reads the host layout).
 */
export function bwrapBaseArgs(layout: BwrapLayout): string[] {
  const args = ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"];
  if (!layout.network) args.push("--unshare-net");
  for (const dir of SYSTEM_DIRS) {
    const st = lstatOrUndefined(dir);
    if (st?.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
    else if (st?.isDirectory()) args.push("--ro-bind", dir, dir);
  }
  for (const dir of RESOLVER_DIRS) args.push("--ro-bind-try", dir, dir);
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  for (const p of [...ETC_SECRETS, ...sshHostKeys(), ...layout.hide]) args.push(...mask(p));
  return args;
}

/** The full bwrap argument list for one command: base, the workspace bound writable, cwd. */
export function bwrapArgs(base: readonly string[], workspace: string, cwd: string): string[] {
  return [...base, "--bind", workspace, workspace, "--chdir", cwd, "--"];
}

/** Absolute path of `bwrap` on `searchPath` (the service's PATH), or undefined. */
export function findBwrap(searchPath: string | undefined): string | undefined {
  for (const dir of (searchPath ?? "").split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const file = path.join(dir, "bwrap");
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

const probes = new Map<string, Promise<string | undefined>>();

/**
 * Runs `bwrap <base> -- true` once per process for the same arguments and user: undefined when
 * it works, else why not (bwrap's own first line of error, e.g. no user namespaces).
 */
export function probeBwrap(bwrap: string, base: readonly string[], runAs?: { uid: number; gid: number }): Promise<string | undefined> {
  const key = JSON.stringify([bwrap, base, runAs ?? null]);
  let probe = probes.get(key);
  if (!probe) {
    probe = new Promise((resolve) => {
      const opts = { timeout: PROBE_TIMEOUT_MS, env: { PATH: "/usr/bin:/bin" }, ...(runAs ?? {}) };
      execFile(bwrap, [...base, "--", "true"], opts, (err, _stdout, stderr) => {
        if (!err) return resolve(undefined);
        const line = String(stderr).trim().split("\n")[0];
        resolve(line || (err as NodeJS.ErrnoException).code?.toString() || err.message);
      });
    });
    probes.set(key, probe);
  }
  return probe;
}

/** Hides `p` inside the sandbox when it exists: a directory under an empty tmpfs, a file behind /dev/null. */
function mask(p: string): string[] {
  if (!SYSTEM_DIRS.some((root) => p.startsWith(`${root}/`))) return []; // not mounted at all
  const st = lstatOrUndefined(p);
  if (!st) return [];
  return st.isDirectory() ? ["--tmpfs", p] : ["--ro-bind", "/dev/null", p];
}

function sshHostKeys(): string[] {
  try {
    return readdirSync("/etc/ssh")
      .filter((f) => /^ssh_host_.*_key$/.test(f))
      .map((f) => `/etc/ssh/${f}`);
  } catch {
    return [];
  }
}

function lstatOrUndefined(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}
