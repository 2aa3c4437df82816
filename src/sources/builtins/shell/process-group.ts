import { spawn } from "node:child_process";
import { setTimeout as delay } from "node:timers/promises";
import { signalGroup, terminateGroup, waitGroupGone } from "../../process-tree.js";
import { CappedOutput } from "../common/output-cap.js";

/** How to run one shell command. */
export interface GroupRunOptions {
  shell: string;
  command: string;
  cwd: string;
  /** The child's entire environment. */
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  signal?: AbortSignal;
  outputLimitBytes: number;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  /** Run as this user and group (supplementary groups dropped); needs a root service. */
  runAs?: { uid: number; gid: number };
  /**
   * A program and its arguments the shell is started through (the sandbox: `bwrap … --`). It
   * leads the group; everything it starts stays in it.
   */
  launcher?: readonly string[];
}

/** How a command ended. `output` is combined stdout+stderr, capped. */
export interface GroupRunResult {
  output: string;
  truncated: boolean;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
}

const DEFAULT_KILL_GRACE_MS = 2_000;
const SETTLE_MS = 2_000;

/** The process groups of one builtin source still running, so close() can take them down. */
export class ProcessGroups {
  private readonly live = new Map<number, () => Promise<void>>();

  /** Number of groups still running. */
  get size(): number {
    return this.live.size;
  }

  /** @internal */
  add(pgid: number, kill: () => Promise<void>): void {
    this.live.set(pgid, kill);
  }

  /** @internal */
  delete(pgid: number): void {
    this.live.delete(pgid);
  }

  /** Terminates every live group (SIGTERM, then SIGKILL after the grace period). */
  async killAll(): Promise<void> {
    await Promise.all([...this.live.values()].map((kill) => kill()));
  }
}

/**
 * Runs `<shell> -c <command>` as the leader of a new process group, so the command and
 * everything it starts can be killed together: on timeout, on `signal`, and — for whatever it
 * left running in the background — when the shell exits. Resolves only once the group is gone.
 */
export async function runInGroup(opts: GroupRunOptions, groups: ProcessGroups): Promise<GroupRunResult> {
  const out = new CappedOutput(opts.outputLimitBytes);
  // One pipe for both streams, joined by the shell itself: output keeps the order it was written in.
  const argv = [...(opts.launcher ?? []), opts.shell, "-c", `exec 2>&1\n${opts.command}`];
  const child = spawn(argv[0] ?? opts.shell, argv.slice(1), {
    cwd: opts.cwd,
    env: { ...opts.env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    ...(opts.runAs ? { uid: opts.runAs.uid, gid: opts.runAs.gid } : {}),
  });
  const spawned = new Promise<Error | undefined>((resolve) => {
    child.once("spawn", () => resolve(undefined));
    child.once("error", resolve);
  });
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once("exit", (c, s) => resolve([c, s])));
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  child.stdout.on("data", (b: Buffer) => out.push(b));
  child.stderr.on("data", (b: Buffer) => out.push(b));

  const spawnError = await spawned;
  if (spawnError || child.pid === undefined) throw spawnError ?? new Error("the shell did not start");
  const pgid = child.pid;

  let timedOut = false;
  let aborted = false;
  let killing: Promise<void> | undefined;
  const kill = () => (killing ??= terminateGroup(pgid, opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS));
  groups.add(pgid, kill);
  const timer = setTimeout(() => {
    timedOut = true;
    void kill();
  }, opts.timeoutMs);
  const onAbort = () => {
    aborted = true;
    void kill();
  };
  if (opts.signal?.aborted) onAbort();
  else opts.signal?.addEventListener("abort", onAbort, { once: true });

  try {
    const [exitCode, signal] = await exited;
    clearTimeout(timer);
    await killing;
    // The shell is gone; background jobs it left in its group go with it.
    signalGroup(pgid, "SIGKILL");
    await waitGroupGone(pgid, SETTLE_MS);
    // A process that left the group (setsid) may still hold the pipes: stop waiting for it.
    await Promise.race([closed, delay(SETTLE_MS)]);
    child.stdout.destroy();
    child.stderr.destroy();
    return { output: out.text(), truncated: out.truncated, exitCode, signal, timedOut, aborted };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
    groups.delete(pgid);
  }
}
