import { readFile } from "node:fs/promises";
import path from "node:path";
import { bwrapBaseArgs, findBwrap, probeBwrap } from "./sandbox.js";

/**
 * Which protection keeps bash commands away from the service's secrets, decided once when the
 * source builds: the bubblewrap sandbox when it works here (or is required), else `runAs`, else
 * none — and the one line `serve` logs and `/status` shows about it.
 */

/** `builtins.sandbox`, resolved. */
export interface SandboxSetting {
  mode: "auto" | "bubblewrap" | "off";
  /** false: commands get no network. */
  network: boolean;
}

/** A user to run commands as: ids, or a name looked up in /etc/passwd. */
export type RunAsSetting = { uid: number; gid: number } | string;

/** What bash commands run under. */
export type Protection =
  | { kind: "bubblewrap"; bwrap: string; baseArgs: string[]; network: boolean; runAs?: { uid: number; gid: number } }
  | { kind: "runAs"; runAs: { uid: number; gid: number } }
  | { kind: "none" };

/** A protection the config requires cannot be had on this machine: the service must not start. */
export class ProtectionError extends Error {
  override readonly name = "ProtectionError";
}

/** What {@link resolveProtection} needs. */
export interface ProtectionRequest {
  sandbox: SandboxSetting;
  runAs?: RunAsSetting;
  /** The service's own files (config, pin file, audit log) to hide from the sandbox. */
  hide: readonly string[];
  /** Where bwrap is looked for; default the service's PATH. */
  searchPath?: string;
  /** The service's uid; default process.getuid(). */
  uid?: number;
}

const NONE_TEXT = "none — a key allowed to use bash can read this service's secrets";

/**
 * Decides the protection. Throws {@link ProtectionError} with the way out when the config asks
 * for what this machine cannot give: `sandbox: bubblewrap` without a working bwrap, `runAs`
 * without a root service, an unknown `runAs` user.
 */
export async function resolveProtection(req: ProtectionRequest): Promise<Protection> {
  const runAs = req.runAs === undefined ? undefined : await runAsIds(req.runAs, req.uid ?? process.getuid?.());
  if (req.sandbox.mode !== "off") {
    const bwrap = findBwrap(req.searchPath ?? process.env.PATH);
    const baseArgs = bwrap ? bwrapBaseArgs({ network: req.sandbox.network, hide: req.hide }) : [];
    const why = bwrap ? await probeBwrap(bwrap, baseArgs, runAs) : "bwrap was not found on PATH (install the bubblewrap package)";
    if (bwrap && why === undefined) {
      return { kind: "bubblewrap", bwrap, baseArgs, network: req.sandbox.network, ...(runAs ? { runAs } : {}) };
    }
    if (req.sandbox.mode === "bubblewrap") {
      throw new ProtectionError(
        `builtins.sandbox is bubblewrap, but bubblewrap does not work on this machine: ${why}. ` +
          'Install bubblewrap (and allow user namespaces when the service is not root), or set builtins.sandbox: "auto" or "off".',
      );
    }
  }
  return runAs ? { kind: "runAs", runAs } : { kind: "none" };
}

/** The text after `builtins sandbox: ` in the start-up log line, and `/status`'s `sandbox`. */
export function describeProtection(p: Protection): string {
  if (p.kind === "none") return NONE_TEXT;
  if (p.kind === "runAs") return `runAs uid=${p.runAs.uid} gid=${p.runAs.gid}`;
  const extras = [...(p.network ? [] : ["network off"]), ...(p.runAs ? [`runAs uid=${p.runAs.uid} gid=${p.runAs.gid}`] : [])];
  return extras.length > 0 ? `bubblewrap (${extras.join(", ")})` : "bubblewrap";
}

/** The absolute service files a config names that a command must not read. */
export function serviceFiles(files: readonly (string | undefined)[]): string[] {
  return [...new Set(files.filter((f): f is string => typeof f === "string" && path.isAbsolute(f)))];
}

async function runAsIds(setting: RunAsSetting, serviceUid: number | undefined): Promise<{ uid: number; gid: number }> {
  if (serviceUid !== 0) {
    throw new ProtectionError(
      `builtins.runAs needs the service to run as root (it runs as uid ${serviceUid ?? "unknown"}): ` +
        "start it as root, or remove runAs and use the bubblewrap sandbox.",
    );
  }
  if (typeof setting !== "string") return setting;
  const passwd = await readFile("/etc/passwd", "utf8").catch(() => "");
  for (const line of passwd.split("\n")) {
    const [name, , uid, gid] = line.split(":");
    if (name === setting && uid !== undefined && gid !== undefined) return { uid: Number(uid), gid: Number(gid) };
  }
  throw new ProtectionError(`builtins.runAs names the user "${setting}", which /etc/passwd does not have`);
}
