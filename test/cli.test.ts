import { execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { tempDir } from "./helpers/temp-dir.js";
import { freePort } from "./helpers/free-port.js";

const root = path.resolve(import.meta.dirname, "..");
const cli = path.join(root, "dist/bundle/cli.js");
const example = path.join(root, "examples/config");

async function toolnexus(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [cli, ...args], { env: { ...process.env, TOOLNEXUS_CONFIG: "" } })
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }))
    .catch((e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }));
}

describe("toolnexus CLI", () => {
  it("prints help for the program and for each command", async () => {
    expect((await toolnexus("--help")).stdout).toContain("Commands:");
    for (const cmd of ["serve", "mcp", "tools", "call", "openapi"]) {
      const { code, stdout } = await toolnexus(cmd, "--help");
      expect(code, cmd).toBe(0);
      expect(stdout, cmd).toContain(`Usage: toolnexus ${cmd}`);
    }
    expect((await toolnexus("frobnicate")).code).toBe(2);
  });

  it("tools lists the example's tools, as a table or as JSON", async () => {
    const table = await toolnexus("tools", "--config", example);
    expect(table.stdout).toMatch(/^echo\s+native\s+Return the text it is given\.$/m);
    const json = JSON.parse((await toolnexus("tools", "--config", example, "--json")).stdout) as { tools: { name: string }[] };
    expect(json.tools.map((t) => t.name)).toEqual(["echo", "sleep", "divide", "approve", "steps", "confirm_delete", "report"]);
  });

  it("call exits 0 on success, 1 on an isError result, 2 on failure", async () => {
    expect(await toolnexus("call", "echo", "--args", '{"text":"hi there"}', "--config", example)).toMatchObject({
      code: 0,
      stdout: "hi there\n",
    });
    expect(await toolnexus("call", "divide", "--args", '{"a":1,"b":0}', "--config", example)).toMatchObject({
      code: 1,
      stderr: "Cannot divide by zero\n",
    });
    const unknown = await toolnexus("call", "nope", "--config", example);
    expect(unknown).toMatchObject({ code: 2 });
    expect(unknown.stderr).toContain('No tool named "nope"');
    const invalid = await toolnexus("call", "echo", "--args", '{"text":1}', "--config", example);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain("/text must be string");
    expect((await toolnexus("call", "echo", "--args", "{oops", "--config", example)).code).toBe(2);
    // A timeout is a failure, as REST's 504, though the sleep tool answers its abort with an error of its own.
    const late = await toolnexus("call", "sleep", "--args", '{"ms":10000}', "--timeout", "100", "--config", example);
    expect(late).toMatchObject({ code: 2, stderr: "error: sleep timed out after 100 ms\n" });
  });

  it("call --stream prints one stderr line per progress report, then the result with the same exit codes", async () => {
    const plugin = path.join(root, "test/fixtures/plugins/progress.mjs");
    const dir = await tempDir({ "toolnexus.yaml": `plugins: [${JSON.stringify(plugin)}]\n` });
    expect(await toolnexus("call", "count", "--args", '{"steps":2,"everyMs":1}', "--config", dir, "--stream")).toEqual({
      code: 0,
      stdout: "counted to 2\n",
      stderr: "progress 1/2 step 1 of 2\nprogress 2/2 step 2 of 2\n",
    });
    expect(await toolnexus("call", "refuse", "--config", dir, "--stream")).toEqual({
      code: 1,
      stdout: "",
      stderr: "progress 1/2\nrefused on purpose\n",
    });
    expect(await toolnexus("call", "count", "--args", '{"steps":2,"everyMs":1}', "--config", dir)).toEqual({
      code: 0,
      stdout: "counted to 2\n",
      stderr: "",
    });
  });

  it("a bad config exits 2 naming every failing path", async () => {
    const dir = await tempDir({ "toolnexus.yaml": "server: { port: x }\nplugins: [./missing.mjs]\n" });
    const { code, stderr } = await toolnexus("tools", "--config", dir);
    expect(code).toBe(2);
    expect(stderr).toContain("/server/port must be integer");
    const noConfig = await toolnexus("tools");
    expect(noConfig.code).toBe(2);
    expect(noConfig.stderr).toContain("no config given");
  });

  it("openapi prints the committed openapi/openapi.json", async () => {
    const { stdout } = await toolnexus("openapi");
    expect(stdout).toBe(await readFile(path.join(root, "openapi/openapi.json"), "utf8"));
  });

  it("openapi --config prints that deployment's per-tool document; --key-id narrows it to that key's tools", async () => {
    const paths = (out: string) =>
      Object.keys((JSON.parse(out) as { paths: Record<string, unknown> }).paths).filter((p) => !p.includes("{") && p.startsWith("/tools/"));
    const all = await toolnexus("openapi", "--config", example);
    expect(all.code).toBe(0);
    expect(paths(all.stdout)).toEqual(
      ["echo", "sleep", "divide", "approve", "steps", "confirm_delete", "report"].flatMap((t) => [
        `/tools/${t}/execute`,
        `/tools/${t}/executions`,
      ]),
    );

    const dir = await tempDir({
      "toolnexus.yaml": `plugins: [${JSON.stringify(path.join(example, "plugins/*.mjs"))}]\nauth: { apiKeys: [ { id: ci, key: "ci-key-0123456789abcdef", tools: ["ech*"] } ] }\n`,
    });
    const narrowed = await toolnexus("openapi", "--config", dir, "--key-id", "ci");
    expect(paths(narrowed.stdout)).toEqual(["/tools/echo/execute", "/tools/echo/executions"]);
    expect(narrowed.stdout).not.toContain("ci-key-0123456789abcdef");
    const unknownKey = await toolnexus("openapi", "--config", dir, "--key-id", "nobody");
    expect(unknownKey.code).toBe(2);
    expect(unknownKey.stderr).toContain('no API key with id "nobody"');
    expect((await toolnexus("openapi", "--key-id", "ci")).code).toBe(2);
  }, 60_000);

  it("serve refuses command built-ins without API keys, naming the way out", async () => {
    const dir = await tempDir({ "toolnexus.yaml": "builtins: true\n" });
    const { code, stderr } = await toolnexus("serve", "--config", dir, "--port", "0");
    expect(code).toBe(2);
    expect(stderr).toContain("refusing to start");
    expect(stderr).toContain("server.insecure");
  });

  it("serve refuses to start when builtins.sandbox requires bubblewrap and bwrap is missing, naming the way out", async () => {
    const dir = await tempDir({
      "toolnexus.yaml":
        'builtins: { enabled: true, sandbox: bubblewrap }\nauth: { apiKeys: [ { id: a, key: "a-key-0123456789abcdef" } ] }\n',
    });
    // A PATH without bwrap, as on a machine without the bubblewrap package.
    const run = promisify(execFile)(process.execPath, [cli, "serve", "--config", dir, "--port", "0"], {
      env: { ...process.env, TOOLNEXUS_CONFIG: "", PATH: "/nonexistent-dir" },
      timeout: 20_000,
    });
    const { code, stderr } = await run.then(
      () => ({ code: 0, stderr: "" }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(code).toBe(2);
    expect(stderr).toContain("refusing to start: builtins.sandbox is bubblewrap, but bubblewrap does not work on this machine");
    expect(stderr).toContain("bwrap was not found on PATH (install the bubblewrap package)");
  });

  it("serve drains on SIGTERM: in-flight calls complete, new ones are refused, exit 0, no child process left", async () => {
    const port = await freePort();
    const dir = await tempDir({
      "toolnexus.yaml": [
        `plugins: [${JSON.stringify(path.join(example, "plugins", "*.mjs"))}]`,
        `mcpServers: { fixture: { command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(path.join(root, "test/fixtures/mcp/fault-server.mjs"))}] } }`,
        "server: { shutdownGraceMs: 5000 }",
      ].join("\n"),
    });
    const child = spawn(process.execPath, [cli, "serve", "--config", dir, "--port", String(port)], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.resume();
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    // A failed expectation must not leave the server running.
    onTestFinished(() => void child.kill("SIGKILL"));
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 300; i++) {
      if (
        (await fetch(`${url}/readyz`).then(
          (r) => r.status,
          () => 0,
        )) === 200
      )
        break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const tools = (await (await fetch(`${url}/tools`)).json()) as { tools: { name: string }[] };
    expect(tools.tools.map((t) => t.name)).toContain("fixture_echo");
    const children = await childPids(child.pid ?? 0);
    expect(children.length).toBeGreaterThan(0);

    const post = (ms: number) =>
      fetch(`${url}/tools/sleep/execute`, {
        method: "POST",
        headers: { "content-type": "application/json", connection: "close" },
        body: JSON.stringify({ arguments: { ms } }),
      });
    const inflight = [post(700), post(900)];
    await new Promise((r) => setTimeout(r, 200));
    child.kill("SIGTERM");
    // Once it says so it drains (a fixed pause raced the signal handler on a loaded machine).
    await vi.waitFor(() => expect(stdout).toContain('"msg":"shutting down"'), { timeout: 10_000, interval: 20 });
    const late = await fetch(`${url}/tools/sleep/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"arguments":{"ms":1}}',
    }).then(
      (r) => r.status,
      () => "refused",
    );
    expect([503, "refused"]).toContain(late);

    const results = await Promise.all(inflight.map(async (r) => (await r).json()));
    expect(results).toEqual([
      { output: "slept 700 ms", isError: false },
      { output: "slept 900 ms", isError: false },
    ]);
    expect(await exited).toBe(0);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    for (const pid of children) expect(alive(pid), `child ${pid}`).toBe(false);
  });
});

/** Direct children of `pid`, read from /proc. */
async function childPids(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "");
  return text.trim().split(/\s+/).filter(Boolean).map(Number);
}

/** True while `pid` runs (a zombie left for an init that does not reap counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
}
