import { execFile, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { tempDir } from "./helpers/temp-dir.js";

const root = path.resolve(import.meta.dirname, "..");
const cli = path.join(root, "dist/cli.js");
const example = path.join(root, "examples/config");

async function toolnexus(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [cli, ...args], { env: { ...process.env, TOOLNEXUS_CONFIG: "" } })
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }))
    .catch((e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }));
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

describe("toolnexus CLI", () => {
  it("prints help for the program and for each command", async () => {
    expect((await toolnexus("--help")).stdout).toContain("Commands:");
    for (const cmd of ["serve", "tools", "call", "openapi"]) {
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
    expect(json.tools.map((t) => t.name)).toEqual(["echo", "sleep", "divide", "approve"]);
  });

  it("call exits 0 on success, 1 on an isError result, 2 on failure", async () => {
    expect(await toolnexus("call", "echo", "--args", '{"text":"hi there"}', "--config", example)).toMatchObject({ code: 0, stdout: "hi there\n" });
    expect(await toolnexus("call", "divide", "--args", '{"a":1,"b":0}', "--config", example)).toMatchObject({ code: 1, stderr: "Cannot divide by zero\n" });
    const unknown = await toolnexus("call", "nope", "--config", example);
    expect(unknown).toMatchObject({ code: 2 });
    expect(unknown.stderr).toContain('No tool named "nope"');
    const invalid = await toolnexus("call", "echo", "--args", '{"text":1}', "--config", example);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain("/text must be string");
    expect((await toolnexus("call", "echo", "--args", "{oops", "--config", example)).code).toBe(2);
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

  it("serve answers, drains on SIGTERM letting an in-flight call finish, and exits 0", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [cli, "serve", "--config", example, "--port", String(port)], { stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100; i++) {
      if ((await fetch(`${url}/readyz`).then((r) => r.status, () => 0)) === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const inflight = fetch(`${url}/tools/sleep/execute`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"arguments":{"ms":400}}' });
    await new Promise((r) => setTimeout(r, 100));
    child.kill("SIGTERM");
    const res = await inflight;
    expect(await res.json()).toEqual({ output: "slept 400 ms", isError: false });
    expect(await exited).toBe(0);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
