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
