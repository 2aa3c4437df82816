import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { childEnv } from "../../child-env.js";
import { groupAlive, terminateGroup } from "../../process-tree.js";
import { JsonLineBuffer } from "./json-lines.js";
import { LineWriter } from "./line-writer.js";

/** How to start one stdio MCP server. */
export interface StdioOptions {
  command: string;
  args: string[];
  /** The child's own variables, on top of PATH, HOME, LANG, TMPDIR (or of everything, with `inheritEnv`). */
  env: Record<string, string>;
  /** Pass the service's whole environment (its secrets included), as `inheritEnv: true` asks. */
  inheritEnv?: boolean;
  /** Run the child as this uid/gid (the service must be root to switch). */
  runAs?: { uid: number; gid: number };
  cwd?: string;
  /** Each line the child writes to stderr. */
  onStderr(line: string): void;
}

const POSIX = process.platform !== "win32";
// After the leader exits, a grandchild may still hold stdout open; do not wait for it forever.
const EXIT_TO_CLOSE_MS = 200;
const STDIN_GRACE_MS = 500;
const TERM_GRACE_MS = 1500;

/**
 * A stdio client transport that owns its child's whole process tree. Unlike the SDK's
 * StdioClientTransport it starts the child in its own process group (so `npx`-style launchers
 * and their grandchildren are killed together), passes only PATH, HOME, LANG, TMPDIR plus
 * `env` (not the service's secrets; `inheritEnv: true` passes all of it),
 * and hands stderr to the caller line by line instead of inheriting it.
 */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child?: ChildProcess;
  private writer?: LineWriter;
  private readonly buffer = new JsonLineBuffer();
  private started = false;
  private closedFired = false;
  private exited?: Promise<void>;

  constructor(private readonly opts: StdioOptions) {}

  /** The child's pid (also its process group id on POSIX), once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * The child's stderr stream (read line by line through `onStderr`). Also how the SDK tells a
   * stdio transport from an HTTP one: it probes for `pid` and `stderr`, and on stdio a
   * `server/discover` probe that gets no answer means a 2025-era server, not an outage.
   */
  get stderr(): NodeJS.ReadableStream | null {
    return this.child?.stderr ?? null;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const child = spawn(this.opts.command, this.opts.args, {
      cwd: this.opts.cwd,
      env: childEnv(this.opts.env, this.opts.inheritEnv === true),
      stdio: ["pipe", "pipe", "pipe"],
      detached: POSIX,
      windowsHide: true,
      ...(this.opts.runAs ? { uid: this.opts.runAs.uid, gid: this.opts.runAs.gid } : {}),
    });
    this.child = child;
    if (child.stdin) this.writer = new LineWriter(child.stdin);
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
    child.stdout?.on("data", (chunk: Buffer) => this.read(chunk));
    child.stdout?.on("error", (err) => this.onerror?.(err));
    child.stdin?.on("error", (err) => this.onerror?.(err));
    if (child.stderr) createInterface({ input: child.stderr, crlfDelay: Infinity }).on("line", (l) => this.opts.onStderr(l));
    child.once("close", () => this.fireClose());
    child.once("exit", () => {
      // The leader is gone (crash or close): end what is left of its group, then report the close.
      killGroup(child, "SIGTERM");
      setTimeout(() => killGroup(child, "SIGKILL"), TERM_GRACE_MS).unref();
      setTimeout(() => this.fireClose(), EXIT_TO_CLOSE_MS).unref();
    });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", (err) => {
        reject(err);
        this.fireClose();
      });
    });
  }

  private read(chunk: Buffer): void {
    for (const r of this.buffer.push(chunk)) {
      // A line that is not JSON-RPC is reported and dropped; the session goes on.
      if ("error" in r) this.onerror?.(r.error);
      else this.onmessage?.(r.message);
    }
  }

  /** Queues one message; the messages of one event-loop turn reach the child in one write (line-writer.ts). */
  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || !this.writer || stdin.destroyed || stdin.writableEnded || this.closedFired) throw new Error("Not connected");
    await this.writer.send(message);
  }

  /**
   * Ends stdin, then SIGTERM and finally SIGKILL to the whole process group, and resolves only
   * once every process of the group is gone (grandchildren the server left behind included).
   * The group id is signalled only while the group has members, so it cannot be someone else's.
   */
  async close(): Promise<void> {
    const child = this.child;
    if (child && this.exited) {
      // What was sent this turn (a notifications/cancelled, say) still goes out before EOF.
      this.writer?.flush();
      child.stdin?.end();
      if (child.exitCode === null && child.signalCode === null) {
        if (!(await within(this.exited, STDIN_GRACE_MS))) {
          killGroup(child, "SIGTERM");
          if (!(await within(this.exited, TERM_GRACE_MS))) killGroup(child, "SIGKILL");
          await within(this.exited, TERM_GRACE_MS);
        }
      }
      // The leader is gone; what it started in its group may not be yet.
      if (POSIX && child.pid !== undefined && (await groupAlive(child.pid))) await terminateGroup(child.pid, TERM_GRACE_MS);
    }
    this.buffer.clear();
    this.fireClose();
  }

  private fireClose(): void {
    if (this.closedFired) return;
    this.closedFired = true;
    this.onclose?.();
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (POSIX) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // ESRCH: nothing left to kill.
  }
}

function within(p: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    t.unref();
    void p.then(() => {
      clearTimeout(t);
      resolve(true);
    });
  });
}
