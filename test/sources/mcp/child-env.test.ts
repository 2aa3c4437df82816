import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolkit } from "../../../src/create-toolkit.js";

// A stdio MCP server that answers its own environment as JSON.
const ENV_SERVER = fileURLToPath(new URL("../../fixtures/mcp/env-server.mjs", import.meta.url));
const SECRET = "service-secret-must-not-reach-children";

beforeAll(() => {
  // Stands for every ${VAR} secret in the service's environment.
  process.env.TN_SERVICE_SECRET = SECRET;
});
afterAll(() => {
  delete process.env.TN_SERVICE_SECRET;
});

/** The environment the server `srv` was started with, configured by `extra`. */
async function childEnv(extra: Record<string, unknown> = {}): Promise<Record<string, string>> {
  const tk = await createToolkit({ mcpServers: { srv: { command: [process.execPath, ENV_SERVER], env: { GIVEN: "given-value" }, ...extra } } });
  try {
    const r = await tk.execute("srv_env", {});
    expect(r.isError).toBe(false);
    return JSON.parse(r.output) as Record<string, string>;
  } finally {
    await tk.close();
  }
}

describe("the environment of a stdio MCP server", () => {
  it("is PATH, HOME, LANG, TMPDIR and its config's env: none of the service's secrets", async () => {
    const env = await childEnv();
    expect(env.TN_SERVICE_SECRET).toBeUndefined();
    expect(JSON.stringify(env)).not.toContain(SECRET);
    expect(env.GIVEN).toBe("given-value");
    expect(env.PATH).toBe(process.env.PATH);
    // Node may add a variable of its own at start; nothing else of the service's comes along.
    const fromService = Object.keys(env).filter((k) => k !== "GIVEN" && process.env[k] !== undefined);
    expect(fromService.sort()).toEqual(["HOME", "LANG", "PATH", "TMPDIR"].filter((k) => process.env[k] !== undefined));
  });

  it("is the service's whole environment plus env with inheritEnv: true", async () => {
    const env = await childEnv({ inheritEnv: true });
    expect(env.TN_SERVICE_SECRET).toBe(SECRET);
    expect(env.GIVEN).toBe("given-value");
  });
});
