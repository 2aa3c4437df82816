import { readdirSync, readFileSync } from "node:fs";

/**
 * True when no process of the group can run any more: `kill(-pgid, 0)` fails with ESRCH, or
 * (Linux) every process still listed in the group is a zombie. The second case exists because
 * some inits (this VM's, containers without --init) never reap orphans: a killed grandchild then
 * stays a zombie in the group forever, although it is dead.
 */
export function groupGone(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
  const members = readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return Number(pgrp) === pgid ? [state] : [];
      } catch {
        return [];
      }
    });
  return members.every((state) => state === "Z" || state === "X");
}

/** Polls {@link groupGone} until true or `ms` passed. */
export async function waitGroupGone(pgid: number, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (groupGone(pgid)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return groupGone(pgid);
}

/** One host process: its pid, process group and state (from /proc/<pid>/stat). */
interface HostProcess {
  pid: number;
  pgrp: number;
  state: string;
}

/**
 * The live host processes whose command line contains `marker` — found from outside, so it
 * works for a command in the sandbox's PID namespace too (where `$$` is a namespace-local id).
 */
export function processesWith(marker: string): HostProcess[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)
    .flatMap((pid) => {
      try {
        if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker)) return [];
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const [state = "", , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return state === "Z" || state === "X" ? [] : [{ pid: Number(pid), pgrp: Number(pgrp), state }];
      } catch {
        return [];
      }
    });
}

/** Polls until a process whose command line holds `marker` runs, and returns its (host) process group. */
export async function pgidOf(marker: string, ms = 5000): Promise<number> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const found = processesWith(marker)[0];
    if (found) return found.pgrp;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no process with ${marker} started`);
}

/** A marker unique to one test command (put it in the command as `: <marker>;`). */
export function marker(label: string): string {
  return `tn-marker-${label}-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
}
