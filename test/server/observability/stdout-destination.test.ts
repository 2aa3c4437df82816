import { spawn } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

// The built module: the destination writes to the process's own stdout, so it runs in a child.
const LOGGER = pathToFileURL(path.resolve(import.meta.dirname, "../../../dist/server/observability/logger.js")).href;

/** Runs `body` in a child node that has `d`, the stdout destination; resolves with its stdout once `done` says so. */
function child(body: string, done: (out: string) => boolean): Promise<{ out: string; code: number | null }> {
  const script = `const { stdoutDestination } = await import(${JSON.stringify(LOGGER)}); const d = stdoutDestination(); ${body}`;
  // Killed after 25 s whatever happens (within the test's 30 s): a destination that never writes
  // fails the test, not the run. 10 s was once too short for a child on a machine running two
  // suites at once.
  const proc = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"], timeout: 25_000 });
  let out = "";
  return new Promise((resolve, reject) => {
    proc.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (done(out)) proc.kill();
    });
    proc.on("error", reject);
    proc.on("close", (code) => resolve({ out, code }));
  });
}

describe("stdoutDestination", () => {
  it("writes every line in order, what is pending at exit included", async () => {
    const { out, code } = await child(
      `for (let i = 0; i < 2000; i++) d.write(JSON.stringify({ i }) + "\\n"); d.write('{"last":true}\\n'); process.exit(3);`,
      () => false,
    );
    expect(code).toBe(3);
    const lines = out.trimEnd().split("\n");
    expect(lines).toHaveLength(2001);
    expect(lines.slice(0, 2000).map((l) => JSON.parse(l).i)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    expect(lines.at(-1)).toBe('{"last":true}');
  });

  it("writes a lone line while the process goes on", async () => {
    // The process would live a minute: the line must come out long before, on the flush timer.
    const { out } = await child(`d.write('{"alone":true}\\n'); setTimeout(() => undefined, 60_000);`, (o) => o.includes("\n"));
    expect(out).toBe('{"alone":true}\n');
  });
});
