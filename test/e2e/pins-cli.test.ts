import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { CLI } from "../helpers/serve-process.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { tempDir } from "../helpers/temp-dir.js";
import { eventually } from "../helpers/wait.js";

const MUTABLE = fileURLToPath(new URL("../fixtures/mcp/mutable-server.mjs", import.meta.url));
const run = promisify(execFile);

/** Runs the CLI; resolves with its exit code and output whatever the code. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

describe("toolnexus pins", () => {
  it("lists a changed definition with what changed, approves it for the running service, and resets a pin", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "toolnexus.json");
    const pinFile = path.join(dir, "pins.json");
    const config = (description: string) =>
      JSON.stringify({
        pinning: { mode: "block", file: "pins.json" },
        mcpServers: { wx: { command: [process.execPath, MUTABLE], env: { WEATHER_DESCRIPTION: description } } },
      });
    await writeFile(file, config("Weather v1"));
    s = await startServer({ config: file });
    const server = s;
    const listed = async () =>
      ((await (await fetch(`${server.url}/tools`)).json()) as { tools: { name: string }[] }).tools.map((t) => t.name);
    await eventually(async () =>
      Object.keys(JSON.parse(await readFile(pinFile, "utf8").catch(() => "{}")).pins ?? {}).length === 4 ? true : undefined,
    );

    await writeFile(file, config("Weather v2"));
    expect(await s.app.toolnexus.reload()).toBe(true);
    expect(await listed()).not.toContain("wx_weather");

    const list = await cli("pins", "list", "--config", dir, "--json");
    expect(list.code).toBe(0);
    const rows = (JSON.parse(list.stdout) as { tools: { tool: string; state: string; changes?: unknown[] }[] }).tools;
    expect(rows.find((r) => r.tool === "wx_weather")).toMatchObject({
      state: "changed",
      changes: [{ path: "description", change: "changed", before: "Weather v1", after: "Weather v2" }],
    });
    expect(rows.find((r) => r.tool === "wx_mutate")).toMatchObject({ state: "pinned" });

    const approved = await cli("pins", "approve", "wx_weather", "--config", dir);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(/^approved wx_weather sha256:[0-9a-f]{64}/);
    // The running service watches the pin file.
    await eventually(async () => ((await listed()).includes("wx_weather") ? true : undefined));

    expect((await cli("pins", "approve", "no_such_tool", "--config", dir)).code).toBe(2);
    expect((await cli("pins", "reset", "--config", dir)).code).toBe(2);
    const before = JSON.parse(await readFile(pinFile, "utf8")).pins.wx_mutate.pinnedAt as string;
    const reset = await cli("pins", "reset", "wx_mutate", "--config", dir);
    expect(reset.code).toBe(0);
    // Forgotten, then pinned afresh by the running service at its next look (newTools: allow).
    await eventually(async () => {
      const pin = JSON.parse(await readFile(pinFile, "utf8")).pins.wx_mutate as { pinnedAt: string } | undefined;
      return pin && pin.pinnedAt !== before ? true : undefined;
    });
  });

  it("says where pins are when the config has neither a pin file nor Redis", async () => {
    const dir = await tempDir({ "toolnexus.json": "{}" });
    const res = await cli("pins", "list", "--config", dir);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/memory of each running server/);
  });

  it("--url lists and approves against a running service with an operator key, no config at hand", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "toolnexus.json");
    const operator = "o".repeat(40);
    const user = "u".repeat(40);
    const config = (description: string) =>
      JSON.stringify({
        auth: {
          apiKeys: [
            { id: "ops", key: operator, operator: true },
            { id: "dev", key: user },
          ],
        },
        pinning: { mode: "block" },
        mcpServers: { wx: { command: [process.execPath, MUTABLE], env: { WEATHER_DESCRIPTION: description } } },
      });
    await writeFile(file, config("Weather v1"));
    s = await startServer({ config: file });
    const url = s.url;
    await eventually(async () => {
      const r = await fetch(`${url}/admin/pins`, { headers: { authorization: `Bearer ${operator}` } });
      return r.ok ? true : undefined;
    });
    await writeFile(file, config("Weather v2"));
    expect(await s.app.toolnexus.reload()).toBe(true);

    const list = await cli("pins", "list", "--url", url, "--key", operator);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^wx_weather\s+changed\s+withheld\s+sha256:[0-9a-f]{64} -> sha256:[0-9a-f]{64}$/m);
    expect(list.stdout).toMatch(/^ {4}description changed$/m);
    const json = JSON.parse((await cli("pins", "list", "--url", url, "--key", operator, "--json")).stdout) as {
      pending: { tool: string }[];
    };
    expect(json.pending.map((p) => p.tool)).toEqual(["wx_weather"]);

    const refused = await cli("pins", "list", "--url", url, "--key", user);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error: 403 .*not an operator's/);
    expect((await cli("pins", "list", "--url", url)).stderr).toMatch(/^error: 401 /);

    const approved = await cli("pins", "approve", "wx_weather", "--url", url, "--key", operator);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toMatch(/^approved wx_weather sha256:[0-9a-f]{64} \(by ops\)$/m);
    const after = (await (await fetch(`${url}/tools`, { headers: { authorization: `Bearer ${user}` } })).json()) as {
      tools: { name: string }[];
    };
    expect(after.tools.map((t) => t.name)).toContain("wx_weather");
    expect((await cli("pins", "list", "--url", url, "--key", operator)).stdout).toMatch(/0 waiting for approval/);
    expect((await cli("pins", "approve", "no_such_tool", "--url", url, "--key", operator)).code).toBe(2);
  });
});
