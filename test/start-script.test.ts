import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { freePort } from "./helpers/free-port.js";
import { eventually } from "./helpers/wait.js";

/** `npm start` (scripts/start.mjs, as npm runs it) never leaves its server behind on the port. */
const root = path.resolve(import.meta.dirname, "..");

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function startScript(): Promise<{ pid: number; server: number; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(root, "scripts/start.mjs")], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, PORT: String(port) },
  });
  onTestFinished(() => void child.kill("SIGKILL"));
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    () =>
      fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      ),
    { timeoutMs: 60_000, everyMs: 100 },
  );
  // The server's log lines carry its pid: it is the process that must not outlive the script.
  // Logs are written in batches: the first line may come a moment after /readyz answers.
  const server = Number(await eventually(() => /"pid":(\d+)/.exec(out)?.[1], { timeoutMs: 5_000, everyMs: 20 }));
  expect(server).not.toBe(child.pid);
  onTestFinished(() => {
    if (alive(server)) process.kill(server, "SIGKILL");
  });
  return { pid: child.pid ?? 0, server, url };
}

describe("npm start's script", () => {
  for (const signal of ["SIGTERM", "SIGHUP", "SIGKILL"] as const) {
    it(`killed with ${signal} takes its server down: the pid is gone and the port free`, async () => {
      const { pid, server, url } = await startScript();
      expect(alive(server)).toBe(true);
      process.kill(pid, signal);
      await eventually(() => !alive(server), { timeoutMs: 15_000, everyMs: 100 });
      await expect(fetch(`${url}/readyz`)).rejects.toThrow();
    }, 90_000);
  }
});
