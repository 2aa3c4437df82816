import { readFileSync } from "node:fs";
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

/** What the fixture's tool `tool` answers (JSON) when the server `srv` is configured with `extra`. */
async function ask<T>(tool: string, extra: Record<string, unknown> = {}): Promise<T> {
  const tk = await createToolkit({
    mcpServers: { srv: { command: [process.execPath, ENV_SERVER], env: { GIVEN: "given-value" }, ...extra } },
  });
  try {
    const r = await tk.execute(`srv_${tool}`, {});
    expect(r.isError).toBe(false);
    return JSON.parse(r.output) as T;
  } finally {
    await tk.close();
  }
}

/** The environment the server was started with. */
const childEnv = (extra: Record<string, unknown> = {}) => ask<Record<string, string>>("env", extra);

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

const NOBODY = 65534;
// /proc/<pid>/environ holds the environment the service was started with: one of its entries
// that a child's minimal environment does not carry stands for its secrets.
const SERVICE_ENTRY =
  readFileSync("/proc/self/environ", "utf8")
    .split("\0")
    .find((e) => e.includes("=") && !/^(PATH|HOME|LANG|TMPDIR)=/.test(e)) ?? "";

// Switching users needs a root service (this machine's tests and CI run as root).
describe.runIf(process.platform === "linux" && process.getuid?.() === 0)("runAs of a stdio MCP server", () => {
  it("without runAs the server reads the service's start-up environment from /proc: the exposure runAs closes", async () => {
    const seen = await ask<{ uid: number; environ: string }>("parent_environ");
    expect(SERVICE_ENTRY).not.toBe("");
    expect(seen.environ).toContain(SERVICE_ENTRY);
  });

  it("runs the server as the configured user, which cannot read it", async () => {
    const seen = await ask<{ uid: number; environ: string }>("parent_environ", { runAs: { uid: NOBODY, gid: NOBODY } });
    expect(seen).toEqual({ uid: NOBODY, environ: "EACCES" });
  });
});
