import { readFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { normalizeConfig, type LoadedConfig } from "../../../src/config/load.js";
import type { Logger } from "../../../src/core/types.js";
import { BuiltinSource } from "../../../src/sources/builtins/builtin-source.js";
import { builtinsOptions, DEFAULT_LIMITS, type BuiltinsOptions } from "../../../src/sources/builtins/options.js";
import { protectionRefusal } from "../../../src/sources/builtins/shell/protection-check.js";
import { resolveProtection } from "../../../src/sources/builtins/shell/protection.js";

const SERVICE_ENTRY =
  readFileSync("/proc/self/environ", "utf8")
    .split("\0")
    .find((e) => e.includes("=") && !/^(PATH|HOME|LANG|TMPDIR)=/.test(e)) ?? "";
const NONE = "none — a key allowed to use bash can read this service's secrets";
// A PATH without bwrap, as on a machine without the bubblewrap package.
const NO_BWRAP_PATH = "/nonexistent-dir";

let base: string;
const sources: BuiltinSource[] = [];
const savedPath = process.env.PATH;
beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "tn-protection-")));
});
afterEach(() => {
  process.env.PATH = savedPath;
});
afterAll(async () => {
  await Promise.all(sources.map((s) => s.close()));
  await rm(base, { recursive: true, force: true });
});

/** Builds the source with `opts` while PATH is `searchPath`, recording every log line. */
async function build(opts: Partial<BuiltinsOptions>, searchPath = savedPath) {
  const lines: { level: string; msg: string }[] = [];
  const record =
    (level: string) =>
    (obj: object | string, msg?: string): void =>
      void lines.push({ level, msg: typeof obj === "string" ? obj : (msg ?? "") });
  const logger: Logger = { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") };
  const src = new BuiltinSource({
    workspace: path.join(base, `ws-${sources.length}`),
    env: [],
    limits: DEFAULT_LIMITS,
    egress: {},
    ...opts,
  });
  sources.push(src);
  process.env.PATH = searchPath;
  try {
    await src.build({ logger, onToolsChanged() {} });
  } finally {
    process.env.PATH = savedPath;
  }
  const run = (command: string) =>
    src
      .tools()
      .find((t) => t.name === "bash")!
      .execute({ command });
  return { src, lines, run };
}

async function loaded(raw: Record<string, unknown>, file?: string): Promise<LoadedConfig> {
  return normalizeConfig(raw, { baseDir: file ? path.dirname(file) : base, ...(file ? { file } : {}) });
}

describe("which protection bash runs under", () => {
  it("auto: bubblewrap when bwrap works here, announced in one log line", async () => {
    const { src, lines } = await build({ sandbox: { mode: "auto", network: true } });
    expect(src.status().sandbox).toBe("bubblewrap");
    expect(lines.filter((l) => l.msg.startsWith("builtins sandbox:"))).toEqual([{ level: "info", msg: "builtins sandbox: bubblewrap" }]);
  });

  it("auto without bwrap falls back to none, warns so, and bash can then read the service's environment", async () => {
    const { src, lines, run } = await build({ sandbox: { mode: "auto", network: true } }, NO_BWRAP_PATH);
    expect(src.status()).toMatchObject({ state: "connected", sandbox: NONE });
    expect(lines).toContainEqual({ level: "warn", msg: `builtins sandbox: ${NONE}` });
    expect((await run(`/usr/bin/tr '\\0' '\\n' < /proc/${process.pid}/environ`)).output).toContain(SERVICE_ENTRY);
  });

  it("bubblewrap without bwrap: the source fails with the way out, and serve refuses to start", async () => {
    const { src } = await build({ sandbox: { mode: "bubblewrap", network: true } }, NO_BWRAP_PATH);
    expect(src.status()).toMatchObject({ state: "failed", tools: 0 });
    expect(src.tools()).toEqual([]);
    expect(src.status().error).toBe(
      "builtins.sandbox is bubblewrap, but bubblewrap does not work on this machine: bwrap was not found on PATH (install the bubblewrap package). " +
        'Install bubblewrap (and allow user namespaces when the service is not root), or set builtins.sandbox: "auto" or "off".',
    );

    const config = await loaded({ builtins: { enabled: true, workspace: path.join(base, "cfg-ws"), sandbox: "bubblewrap" } });
    expect(await protectionRefusal(config, NO_BWRAP_PATH)).toMatch(
      /^refusing to start: builtins\.sandbox is bubblewrap, but .*bwrap was not found on PATH/,
    );
    expect(await protectionRefusal(config)).toBeUndefined();
    // Without bash there is nothing to sandbox: no refusal.
    const noBash = await loaded({ builtins: { enabled: true, sandbox: "bubblewrap", tools: { bash: false } } });
    expect(await protectionRefusal(noBash, NO_BWRAP_PATH)).toBeUndefined();
  });

  it("off: none, even where bwrap works", async () => {
    const { src } = await build({ sandbox: { mode: "off", network: true } });
    expect(src.status().sandbox).toBe(NONE);
  });

  it("runAs: ids or a user name, only for a root service", async () => {
    const off = { mode: "off" as const, network: true };
    expect(await resolveProtection({ sandbox: off, runAs: "nobody", hide: [], uid: 0 })).toEqual({
      kind: "runAs",
      runAs: { uid: 65534, gid: 65534 },
    });
    expect(await resolveProtection({ sandbox: off, runAs: { uid: 1000, gid: 1001 }, hide: [], uid: 0 })).toEqual({
      kind: "runAs",
      runAs: { uid: 1000, gid: 1001 },
    });
    await expect(resolveProtection({ sandbox: off, runAs: { uid: 1000, gid: 1000 }, hide: [], uid: 1000 })).rejects.toThrow(
      "builtins.runAs needs the service to run as root (it runs as uid 1000)",
    );
    await expect(resolveProtection({ sandbox: off, runAs: "no-such-user-here", hide: [], uid: 0 })).rejects.toThrow(
      'builtins.runAs names the user "no-such-user-here", which /etc/passwd does not have',
    );
    const { src } = await build({ sandbox: off, runAs: "nobody" });
    expect(src.status().sandbox).toBe("runAs uid=65534 gid=65534");
  });

  it("hides the config file, pin file and audit log (and a config directory under /etc) from the sandbox", async () => {
    const inEtc = await loaded(
      { builtins: { enabled: true }, pinning: { file: "pins.json" }, audit: { sink: "file", path: "/var/log/tn/audit.log" } },
      "/etc/toolnexus/toolnexus.yaml",
    );
    expect(builtinsOptions(inEtc).hide).toEqual([
      "/etc/toolnexus/toolnexus.yaml",
      "/etc/toolnexus/pins.json",
      "/var/log/tn/audit.log",
      "/var/log/tn/audit.log.1",
      "/etc/toolnexus",
    ]);
    const elsewhere = await loaded({ builtins: true }, path.join(base, "toolnexus.yaml"));
    expect(builtinsOptions(elsewhere)).toMatchObject({
      hide: [path.join(base, "toolnexus.yaml")],
      sandbox: { mode: "auto", network: true },
    });
    const offline = await loaded({ builtins: { enabled: true, sandbox: { network: false } } });
    expect(builtinsOptions(offline).sandbox).toEqual({ mode: "auto", network: false });
  });
});
