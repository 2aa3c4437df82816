import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { executeTool } from "../../helpers/execute.js";

/** Absolute path of the fault-injecting stdio MCP server. */
export const FAULT_SERVER = fileURLToPath(new URL("../../fixtures/mcp/fault-server.mjs", import.meta.url));

/** One event the fixture server recorded. */
export interface FixtureEvent {
  event: string;
  pid: number;
  at: number;
  tool?: string;
  child?: number;
  requestId?: number;
  reason?: string;
}

/** A fresh temp dir and the path of a fixture event log inside it. */
export async function fixtureLog(): Promise<{ dir: string; log: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), "tn-mcp-"));
  return { dir, log: path.join(dir, "events.jsonl") };
}

/** Every event recorded so far (none when the file does not exist yet). */
export async function readEvents(log: string): Promise<FixtureEvent[]> {
  const text = await readFile(log, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as FixtureEvent);
}

/** Polls `check` every 5 ms until it returns a value, or fails after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, ms = 5000, what = "condition"): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A stdio server entry running the fault fixture with the given environment. */
export function faultServer(env: Record<string, string>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: [process.execPath, FAULT_SERVER], env, ...extra };
}

/** POSTs to `/tools/{name}/execute` and returns the status and parsed body. */
export async function execute(
  url: string,
  name: string,
  args: Record<string, unknown> = {},
  timeoutMs?: number,
): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  const started = performance.now();
  const res = await executeTool(url, name, { arguments: args, ...(timeoutMs ? { timeoutMs } : {}) });
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, body, ms: performance.now() - started };
}
