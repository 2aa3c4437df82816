import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { tempDir } from "../helpers/temp-dir.js";
import { eventually } from "../helpers/wait.js";

const tool = (name: string) =>
  `export default { name: "${name}", description: "${name}", inputSchema: { type: "object", properties: { text: { type: "string" } } }, run: ({ text }) => "${name}:" + text };\n`;

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

async function toolNames(url: string): Promise<string[]> {
  const { tools } = (await (await fetch(`${url}/tools`)).json()) as { tools: { name: string }[] };
  return tools.map((t) => t.name);
}

describe("hot reload of the config file", () => {
  it("under load (c=16): a valid change adds a tool, an invalid one is refused, and no request fails", async () => {
    const dir = await tempDir({
      "toolnexus.yaml": "plugins: [./plugins/a.mjs]\n",
      "plugins/a.mjs": tool("alpha"),
      "plugins/b.mjs": tool("beta"),
    });
    const file = path.join(dir, "toolnexus.yaml");
    s = await startServer({ config: file, watch: true });
    const url = s.url;

    let stop = false;
    let ok = 0;
    const failures: string[] = [];
    const worker = async () => {
      while (!stop) {
        const res = await fetch(`${url}/tools/alpha/execute`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: '{"arguments":{"text":"x"}}',
        }).catch((e: Error) => e);
        if (res instanceof Error) failures.push(res.message);
        else if (res.status !== 200) failures.push(`${res.status} ${await res.text()}`);
        else if (((await res.json()) as { output: string }).output === "alpha:x") ok++;
        else failures.push("wrong output");
      }
    };
    const workers = Array.from({ length: 16 }, worker);

    await new Promise((r) => setTimeout(r, 300));
    await writeFile(file, "plugins: [./plugins/a.mjs, ./plugins/b.mjs]\n");
    await eventually(async () => (await toolNames(url)).includes("beta"), { timeoutMs: 15_000, everyMs: 50 });
    const beta = await fetch(`${url}/tools/beta/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"arguments":{"text":"y"}}',
    });
    expect(await beta.json()).toEqual({ output: "beta:y", isError: false });

    await writeFile(file, "server: { port: not-a-number }\nplugins: [./plugins/a.mjs]\n");
    await eventually(
      async () => {
        const status = (await (await fetch(`${url}/status`)).json()) as { reload?: { ok: boolean; error?: string } };
        return status.reload?.ok === false;
      },
      { timeoutMs: 15_000, everyMs: 50 },
    );
    const status = (await (await fetch(`${url}/status`)).json()) as { reload: { error: string } };
    expect(status.reload.error).toContain("/server/port must be integer");
    expect(await toolNames(url)).toEqual(["alpha", "beta"]);

    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await Promise.all(workers);
    console.log(`reload under load: ${ok} calls succeeded, ${failures.length} failed`);
    expect(failures).toEqual([]);
    expect(ok).toBeGreaterThan(16);
    expect(await readFile(file, "utf8")).toContain("not-a-number");
  });

  it("reload() (SIGHUP) picks up a change without a file event, keeps unchanged modules and re-imports edited ones", async () => {
    const dir = await tempDir({
      "toolnexus.yaml": "plugins: [./plugins/a.mjs]\n",
      "plugins/a.mjs": tool("alpha"),
      "plugins/b.mjs": tool("beta"),
    });
    s = await startServer({ config: path.join(dir, "toolnexus.yaml") });
    const [alphaSource] = s.app.toolnexus.state.peek()?.status() ?? [];
    expect(alphaSource?.name).toBe("plugins/a.mjs");

    await writeFile(path.join(dir, "toolnexus.yaml"), "plugins: [./plugins/a.mjs, ./plugins/b.mjs]\n");
    expect(await s.app.toolnexus.reload()).toBe(true);
    expect(await toolNames(s.url)).toEqual(["alpha", "beta"]);
    expect(s.logs.filter((l) => l.msg === "plugin loaded" && l.name === "plugins/a.mjs")).toHaveLength(1);

    await new Promise((r) => setTimeout(r, 20)); // a new mtime
    await writeFile(path.join(dir, "plugins/a.mjs"), tool("gamma"));
    expect(await s.app.toolnexus.reload()).toBe(true);
    expect(await toolNames(s.url)).toEqual(["gamma", "beta"]);
    expect(s.logs.filter((l) => l.msg === "config reloaded")).toHaveLength(2);
  });
});

describe("reload keeps unchanged MCP servers running", () => {
  it("an identical server entry keeps its process; a changed one is restarted", async () => {
    const fixture = path.resolve(import.meta.dirname, "../fixtures/mcp/fault-server.mjs");
    const dir = await tempDir({ "plugins/b.mjs": tool("beta") });
    const log = path.join(dir, "fixture.log");
    const server = (timeout: number) =>
      `mcpServers: { fx: { command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(fixture)}], env: { FIXTURE_LOG: ${JSON.stringify(log)} }, timeout: ${timeout} } }\n`;
    const file = path.join(dir, "toolnexus.yaml");
    await writeFile(file, server(30000));
    s = await startServer({ config: file });

    const pidOfCall = async (): Promise<number> => {
      const res = await fetch(`${s?.url}/tools/fx_echo/execute`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"arguments":{"text":"hi"}}',
      });
      expect(await res.json()).toMatchObject({ output: "hi", isError: false });
      const lines = (await readFile(log, "utf8"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { event: string; pid: number });
      return lines.filter((l) => l.event === "call").at(-1)?.pid ?? 0;
    };
    const first = await pidOfCall();

    await writeFile(file, `${server(30000)}plugins: [./plugins/b.mjs]\n`);
    expect(await s.app.toolnexus.reload()).toBe(true);
    expect(await toolNames(s.url)).toEqual([
      "fx_echo",
      "fx_hang",
      "fx_crash",
      "fx_malformed",
      "fx_garbage",
      "fx_fail",
      "fx_add_tool",
      "beta",
    ]);
    expect(await pidOfCall()).toBe(first);

    await writeFile(file, server(20000));
    expect(await s.app.toolnexus.reload()).toBe(true);
    const third = await pidOfCall();
    expect(third).not.toBe(first);
  });
});

describe("reload keeps the start-up security rule", () => {
  it("refuses a config that drops the API keys while command built-ins stay on", async () => {
    const key = "reload-key-0123456789abcdef";
    const dir = await tempDir({});
    const file = path.join(dir, "toolnexus.yaml");
    await writeFile(file, `auth: { apiKeys: [{ id: ops, key: ${key}, operator: true }] }\nbuiltins: { enabled: true }\n`);
    s = await startServer({ config: file });
    const bash = () =>
      fetch(`${s?.url}/tools/bash/execute`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"arguments":{"command":"id -un"}}',
      });
    expect((await bash()).status).toBe(401);

    await writeFile(file, "builtins: { enabled: true }\n");
    expect(await s.app.toolnexus.reload()).toBe(false);
    expect((await bash()).status).toBe(401);
    const status = (await (await fetch(`${s.url}/status`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      reload: { ok: boolean; error: string };
    };
    expect(status.reload.ok).toBe(false);
    expect(status.reload.error).toContain("refusing this config");
  });
});

describe("a jwksUri that is no URL", () => {
  // Matches the schema's ^https?:// but `new URL` refuses it (a space in the host).
  const jwt = "auth: { jwt: { issuer: https://idp.example, audience: toolnexus, jwksUri: 'https://idp example/jwks' } }\n";

  it("fails the start-up like any other config error", async () => {
    const dir = await tempDir({ "toolnexus.yaml": jwt });
    await expect(startServer({ config: path.join(dir, "toolnexus.yaml") })).rejects.toThrow(/Invalid URL/);
  });

  it("fails the reload that brings it; the previous config keeps serving", async () => {
    const dir = await tempDir({ "toolnexus.yaml": "plugins: [./plugins/a.mjs]\n", "plugins/a.mjs": tool("alpha") });
    s = await startServer({ config: path.join(dir, "toolnexus.yaml") });
    await writeFile(path.join(dir, "toolnexus.yaml"), `plugins: [./plugins/a.mjs]\n${jwt}`);
    expect(await s.app.toolnexus.reload()).toBe(false);
    // Still open (no auth) and still serving alpha: the bad auth section was not applied.
    expect(await toolNames(s.url)).toEqual(["alpha"]);
    const status = (await (await fetch(`${s.url}/status`)).json()) as { reload: { ok: boolean; error: string } };
    expect(status.reload).toMatchObject({ ok: false, error: expect.stringMatching(/Invalid URL/) });
  });
});
