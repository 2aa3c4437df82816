import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { tempDir } from "./helpers/temp-dir.js";

const root = path.resolve(import.meta.dirname, "..");
const cli = path.join(root, "dist/bundle/cli.js");
const example = path.join(root, "examples/config");

/** `toolnexus tools` with TMPDIR set (where Node puts its compile cache by default), no NODE_COMPILE_CACHE. */
function toolsWithTmp(tmp: string): Promise<{ stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp, TOOLNEXUS_CONFIG: "" };
  delete env.NODE_COMPILE_CACHE;
  delete env.NODE_DISABLE_COMPILE_CACHE;
  return promisify(execFile)(process.execPath, [cli, "tools", "--config", example], { env });
}

describe("the CLI's module compile cache", () => {
  it("is written under the temp dir, and the command's output is the same with it warm", async () => {
    const tmp = await tempDir();
    const cold = await toolsWithTmp(tmp);
    expect(await readdir(path.join(tmp, "node-compile-cache"))).not.toEqual([]);
    const warm = await toolsWithTmp(tmp);
    expect(warm).toEqual(cold);
    expect(cold.stdout).toMatch(/^echo\s+native\s/m);
  });

  it("is skipped without a word where its directory cannot be made (a read-only container)", async () => {
    // A regular file as the temp dir: Node cannot create the cache directory below it.
    const dir = await tempDir({ file: "" });
    const { stdout, stderr } = await toolsWithTmp(path.join(dir, "file"));
    expect(stdout).toMatch(/^echo\s+native\s/m);
    expect(stderr).toBe("");
  });
});
