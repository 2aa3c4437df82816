import { readdir, readFile } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";

/**
 * Process-group helpers shared by the sources that start child processes (the bash/process
 * built-ins and stdio MCP servers): each child leads its own group, and ending it means
 * ending everything in that group, grandchildren included.
 */

const SETTLE_MS = 2_000;
const POLL_MS = 25;

/** Sends `sig` to every process of the group; nothing left in it is not an error. */
export function signalGroup(pgid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pgid, sig);
  } catch {
    // ESRCH: nothing left in the group.
  }
}

/** Resolves true once no process of the group can run, false when `ms` passed first. */
export async function waitGroupGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!(await groupAlive(pgid))) return true;
    if (Date.now() >= deadline) return false;
    await delay(POLL_MS);
  }
}

/**
 * SIGTERM to the group, SIGKILL after `graceMs` if anything in it still runs, then waits
 * (bounded) until the group is gone. Call it only while the group may still have members:
 * once it is empty its id can be reused.
 */
export async function terminateGroup(pgid: number, graceMs: number): Promise<void> {
  signalGroup(pgid, "SIGTERM");
  if (await waitGroupGone(pgid, graceMs)) return;
  signalGroup(pgid, "SIGKILL");
  await waitGroupGone(pgid, SETTLE_MS);
}

/**
 * True while any process of the group can still run. `kill(-pgid, 0)` also succeeds for
 * zombies; under an init that does not reap orphans (some containers and VMs) killed
 * grandchildren stay zombies forever, so on Linux a group of zombies only counts as gone.
 */
export async function groupAlive(pgid: number): Promise<boolean> {
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  if (process.platform !== "linux") return true;
  const pids = await readdir("/proc").catch(() => undefined);
  if (!pids) return true;
  for (const pid of pids) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    // Fields after the parenthesised command name: state ppid pgrp ...
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true;
  }
  return false;
}
