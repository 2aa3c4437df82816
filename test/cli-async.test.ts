import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pollUntil } from "./helpers/executions.js";
import { startServer, type TestServer } from "./helpers/server.js";
import { testTools } from "./helpers/tools.js";

const cli = path.join(path.resolve(import.meta.dirname, ".."), "dist/bundle/cli.js");
const KEY = "cli-async-key-0123456789";
let s: TestServer;

beforeAll(async () => {
  s = await startServer({ config: { auth: { apiKeys: [{ id: "cli", key: KEY }] } }, tools: testTools() });
});
afterAll(() => s.close());

function toolnexus(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [cli, ...args], { env: { ...process.env, TOOLNEXUS_CONFIG: "", TOOLNEXUS_URL: "", ...env } })
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }))
    .catch((e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }));
}

describe("toolnexus call --async", () => {
  it("submits to the server as an execution and prints its id", async () => {
    const { code, stdout } = await toolnexus(
      { TOOLNEXUS_API_KEY: KEY },
      "call",
      "echo",
      "--async",
      "--url",
      s.url,
      "--args",
      '{"text":"later"}',
    );
    expect(code).toBe(0);
    const id = stdout.trim();
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    const done = await pollUntil(s.url, id, ["succeeded"], { headers: { authorization: `Bearer ${KEY}` } });
    expect(done.result).toEqual({ output: "later", isError: false });
  });

  it("exits 2 with the problem on a refused call, and without a server URL", async () => {
    const unknown = await toolnexus({ TOOLNEXUS_API_KEY: KEY, TOOLNEXUS_URL: s.url }, "call", "nope", "--async");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("404 TOOL_NOT_FOUND");
    const noKey = await toolnexus({}, "call", "echo", "--async", "--url", s.url, "--args", '{"text":"x"}');
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("401 UNAUTHORIZED");
    const noUrl = await toolnexus({}, "call", "echo", "--async");
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain("--url");
  });
});
