import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import { startServeProcess } from "./helpers/serve-process.js";
import { tempDir } from "./helpers/temp-dir.js";

/** `toolnexus keys new`: the key and the lines it prints work as printed against a served config. */
const root = path.resolve(import.meta.dirname, "..");
const cli = path.join(root, "dist/bundle/cli.js");

describe("toolnexus keys new", () => {
  it("prints a fresh key whose config line and variable let an operator read /status", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [cli, "keys", "new", "--id", "ops", "--operator"]);
    const key = /^key: ([0-9a-f]{64})$/m.exec(stdout)?.[1] ?? "";
    expect(key).toHaveLength(64);
    const line = stdout.split("\n").find((l) => l.startsWith("    - { id: ops"));
    expect(line).toBe('    - { id: ops, key: "${TOOLNEXUS_KEY_OPS}", operator: true }');
    expect(stdout).toContain(`export TOOLNEXUS_KEY_OPS=${key}`);
    const dir = await tempDir({
      "toolnexus.yaml": `auth:\n  apiKeys:\n${line}\nplugins:\n  - ${path.join(root, "examples/config/plugins/examples.mjs")}\n`,
    });
    const server = await startServeProcess(dir, { ...process.env, TOOLNEXUS_KEY_OPS: key });
    onTestFinished(() => server.stop());
    expect((await fetch(`${server.url}/status`)).status).toBe(401);
    expect((await fetch(`${server.url}/status`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    // A second run makes another key.
    const again = await promisify(execFile)(process.execPath, [cli, "keys", "new"]);
    expect(again.stdout).not.toContain(key);
    expect(again.stdout).toContain('    - { id: me, key: "${TOOLNEXUS_KEY_ME}" }');
  });

  it("refuses another subcommand and an id that would break the YAML line", async () => {
    const run = (...a: string[]) =>
      promisify(execFile)(process.execPath, [cli, "keys", ...a]).then(
        () => 0,
        (e: { code: number }) => e.code,
      );
    expect(await run("old")).toBe(2);
    expect(await run("new", "--id", "a: b")).toBe(2);
  });

  it("the example keys config's key is an operator's: /status answers with it", async () => {
    const key = "k".repeat(40);
    const server = await startServeProcess(path.join(root, "examples/config/with-keys.yaml"), { ...process.env, TOOLNEXUS_API_KEY: key });
    onTestFinished(() => server.stop());
    expect((await fetch(`${server.url}/status`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
  });
});
