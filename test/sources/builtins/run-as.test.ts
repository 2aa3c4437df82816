import { readFileSync } from "node:fs";
import { chmod } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeBuiltins, type Builtins } from "./helpers.js";

const NOBODY = 65534;
// /proc/<pid>/environ holds the environment the service was started with: one of its entries
// that bash's scrubbed environment (PATH, HOME, LANG) does not carry stands for its secrets.
const SERVICE_ENTRY =
  readFileSync("/proc/self/environ", "utf8")
    .split("\0")
    .find((e) => e.includes("=") && !/^(PATH|HOME|LANG)=/.test(e)) ?? "";

// Switching users needs a root service (this machine's tests and CI run as root).
describe.runIf(process.platform === "linux" && process.getuid?.() === 0)("builtins.runAs", () => {
  let asNobody: Builtins;
  let asService: Builtins;
  beforeAll(async () => {
    // runAs alone, where no sandbox is available (the sandbox has its own tests).
    const off = { mode: "off" as const, network: true };
    asNobody = await makeBuiltins({ sandbox: off, runAs: { uid: NOBODY, gid: NOBODY } });
    asService = await makeBuiltins({ sandbox: off });
    // The temporary dirs are 0700; the unprivileged user must be able to enter its workspace.
    await chmod(path.dirname(asNobody.ws), 0o755);
    await chmod(asNobody.ws, 0o777);
  });
  afterAll(async () => {
    await asNobody.close();
    await asService.close();
  });

  const readEnviron = `id -u; id -g; id -G; tr '\\0' '\\n' < /proc/${process.pid}/environ`;

  it("runs bash as the configured user, which cannot read the service's environment", async () => {
    const r = await asNobody.run("bash", { command: readEnviron });
    const [uid, gid, groups] = r.output.split("\n");
    expect([uid, gid, groups]).toEqual([String(NOBODY), String(NOBODY), String(NOBODY)]);
    expect(r.output).toMatch(/Permission denied/);
    expect(r.output).not.toContain(SERVICE_ENTRY);
    expect(r.isError).toBe(true);
  });

  it("with a working sandbox, runAs applies inside it", async () => {
    const both = await makeBuiltins({ runAs: { uid: NOBODY, gid: NOBODY } });
    try {
      await chmod(path.dirname(both.ws), 0o755);
      await chmod(both.ws, 0o777);
      expect(both.src.status().sandbox).toBe(`bubblewrap (runAs uid=${NOBODY} gid=${NOBODY})`);
      expect((await both.run("bash", { command: "id -u; echo x > f; cat f" })).output).toBe(`${NOBODY}\nx\n`);
    } finally {
      await both.close();
    }
  });

  it("without runAs, the same command reads it: the exposure runAs closes", async () => {
    const r = await asService.run("bash", { command: readEnviron });
    expect(SERVICE_ENTRY).not.toBe("");
    expect(r.output).toContain(SERVICE_ENTRY);
  });
});
