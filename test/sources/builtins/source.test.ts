import { mkdtemp, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolkit } from "../../../src/create-toolkit.js";
import { normalizeConfig } from "../../../src/config/load.js";
import { ConfigError } from "../../../src/config/config-error.js";
import { BUILTIN_FACTORIES, CONTRACT_BUILTIN_NAMES, builtinSources, exposedCommandBuiltins } from "../../../src/sources/builtins/index.js";
import type { Logger } from "../../../src/core/types.js";

let dir: string;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(path.join(tmpdir(), "tn-builtin-cfg-")));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

// webfetch comes from the HTTP work (egress guard): the rest must be there whether or not it is.
const ALL = BUILTIN_FACTORIES.length === 10 ? [...CONTRACT_BUILTIN_NAMES] : CONTRACT_BUILTIN_NAMES.filter((n) => n !== "webfetch");
const names = async (builtins: unknown, sub = "ws") => {
  const tk = await createToolkit({ builtins: builtins as never }, { baseDir: path.join(dir, sub) });
  const out = { tools: tk.tools().map((t) => t.name), status: tk.status(), sources: tk.tools().map((t) => t.source) };
  await tk.close();
  return out;
};

describe("builtins config", () => {
  it("is off when absent: no tools, no status entry", async () => {
    const r = await names(undefined);
    expect(r.tools).toEqual([]);
    expect(r.status).toEqual([]);
  });

  it.each([[false], [{ workspace: "./x" }], [{ enabled: false }], [{ enabled: true, disabled: true }], [{ disabled: true }]])(
    "is off for %j, and status says how to turn it on",
    async (cfg) => {
      const r = await names(cfg);
      expect(r.tools).toEqual([]);
      expect(r.status).toEqual([
        { source: "builtin", name: "builtins", state: "disabled", tools: 0, error: expect.stringMatching(/builtins.enabled: true/) },
      ]);
    },
  );

  it("true turns on every built-in, source builtin, in contract order, with a workspace beside the config", async () => {
    const r = await names(true, "cfg-true");
    expect(r.tools).toEqual(ALL);
    expect(new Set(r.sources)).toEqual(new Set(["builtin"]));
    expect(r.status).toEqual([{ source: "builtin", name: "builtins", state: "connected", tools: ALL.length, sandbox: "bubblewrap" }]);
    expect((await stat(path.join(dir, "cfg-true", "workspace"))).isDirectory()).toBe(true);
  });

  it("{ enabled: true, workspace } creates and uses that workspace", async () => {
    const tk = await createToolkit({ builtins: { enabled: true, workspace: "./my-ws" } }, { baseDir: dir });
    const r = await tk.execute("bash", { command: "pwd" });
    expect(r.output).toBe(`${path.join(dir, "my-ws")}\n`);
    await tk.close();
  });

  it("tools: only-false drops those; any true makes an allowlist; unknown names are warned about", async () => {
    expect((await names({ enabled: true, tools: { bash: false, write: false } })).tools).toEqual(
      ALL.filter((n) => n !== "bash" && n !== "write"),
    );
    expect((await names({ enabled: true, tools: { read: true, grep: true, bash: false } })).tools).toEqual(["read", "grep"]);
    const warnings: unknown[] = [];
    const logger: Logger = { debug() {}, info() {}, error() {}, warn: (o) => warnings.push(o) };
    const tk = await createToolkit({ builtins: { enabled: true, tools: { bsah: false } } }, { baseDir: path.join(dir, "ws"), logger });
    expect(tk.tools().map((t) => t.name)).toEqual(ALL);
    expect(warnings).toContainEqual({ unknown: ["bsah"] });
    await tk.close();
  });

  it("a workspace that cannot be created marks the source failed; the toolkit still builds", async () => {
    await writeFile(path.join(dir, "a-file"), "x");
    const r = await names({ enabled: true, workspace: "./a-file/ws" }, "");
    expect(r.tools).toEqual([]);
    expect(r.status[0]).toMatchObject({ state: "failed", error: "cannot prepare the workspace: ENOTDIR" });
  });

  it("rejects unknown keys and bad values", async () => {
    await expect(normalizeConfig({ builtins: { enabled: true, sandbox: true } })).rejects.toThrow(ConfigError);
    await expect(normalizeConfig({ builtins: { enabled: true, env: ["NOT VALID"] } })).rejects.toThrow(ConfigError);
    await expect(normalizeConfig({ builtins: { enabled: true, outputLimitBytes: 10 } })).rejects.toThrow(ConfigError);
  });

  it("exposedCommandBuiltins names the command/write tools a config exposes", async () => {
    const cfg = async (builtins: unknown) => (await normalizeConfig({ builtins }, { baseDir: dir })).config;
    expect(exposedCommandBuiltins(await cfg(true))).toEqual(["bash", "write", "edit", "apply_patch"]);
    expect(exposedCommandBuiltins(await cfg({ enabled: true, tools: { bash: false } }))).toEqual(["write", "edit", "apply_patch"]);
    expect(exposedCommandBuiltins(await cfg({ enabled: true, tools: { read: true, grep: true } }))).toEqual([]);
    expect(exposedCommandBuiltins(await cfg({ enabled: false }))).toEqual([]);
    expect(builtinSources(await normalizeConfig({}, { baseDir: dir }))).toEqual([]);
  });
});
