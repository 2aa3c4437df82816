import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeBuiltins, type Builtins } from "./helpers.js";
import { groupGone, marker, pgidOf } from "./process-check.js";

beforeAll(() => {
  process.env.TOOLNEXUS_CANARY = "canary-value-must-not-leak";
  process.env.TOOLNEXUS_ALLOWED = "allowed-value";
});
afterAll(() => {
  delete process.env.TOOLNEXUS_CANARY;
  delete process.env.TOOLNEXUS_ALLOWED;
});

// Every behaviour holds bare and in the bubblewrap sandbox (which this machine runs). Process
// groups are found from outside by a marker in the command: in the sandbox `$$` is an id of
// the command's own PID namespace.
describe.each(["off", "bubblewrap"] as const)("bash (builtins.sandbox: %s)", (mode) => {
  let b: Builtins;
  const sandbox = { mode, network: true };
  beforeAll(async () => {
    b = await makeBuiltins({
      sandbox,
      env: ["TOOLNEXUS_ALLOWED"],
      limits: { outputLimitBytes: 4096, maxFileBytes: 1024 * 1024, maxScanFiles: 1000 },
    });
    expect(b.src.status().sandbox).toBe(mode === "off" ? "none — a key allowed to use bash can read this service's secrets" : "bubblewrap");
  });
  afterAll(async () => {
    await b.close();
  });

  it("returns combined stdout and stderr in the order written, in the workspace by default", async () => {
    const r = await b.run("bash", { command: "echo out; echo err >&2; echo out2; echo err2 >&2; pwd" });
    expect(r.isError).toBe(false);
    expect(r.output).toBe(`out\nerr\nout2\nerr2\n${b.ws}\n`);
    expect(r.metadata).toMatchObject({ exitCode: 0, truncated: false });
  });

  it("non-zero exit is an error that names the exit code", async () => {
    const r = await b.run("bash", { command: "echo failing; exit 3" });
    expect(r.isError).toBe(true);
    expect(r.output).toBe("failing\nbash: command exited with code 3");
    expect(r.metadata).toMatchObject({ exitCode: 3 });
  });

  it("cannot read the service's environment; sees only PATH, HOME, LANG, TMPDIR and builtins.env", async () => {
    const canary = await b.run("bash", { command: 'echo "[$TOOLNEXUS_CANARY]"' });
    expect(canary.output).toBe("[]\n");
    const all = await b.run("bash", { command: "env | cut -d= -f1 | sort" });
    const names = all.output
      .trim()
      .split("\n")
      .filter((n) => !["PWD", "SHLVL", "_", "OLDPWD"].includes(n));
    expect(names).toEqual(["HOME", "LANG", "PATH", ...(process.env.TMPDIR === undefined ? [] : ["TMPDIR"]), "TOOLNEXUS_ALLOWED"]);
    expect((await b.run("bash", { command: "echo $HOME; echo $TOOLNEXUS_ALLOWED" })).output).toBe(`${b.ws}\nallowed-value\n`);
  });

  it("builtins.inheritEnv: true hands bash the service's whole environment (HOME stays the workspace)", async () => {
    const inheriting = await makeBuiltins({ sandbox, inheritEnv: true });
    try {
      const r = await inheriting.run("bash", { command: 'echo "[$TOOLNEXUS_CANARY]"; echo $HOME' });
      expect(r.output).toBe(`[canary-value-must-not-leak]\n${inheriting.ws}\n`);
    } finally {
      await inheriting.close();
    }
  });

  it("runs in workdir, which must stay inside the workspace", async () => {
    await b.run("bash", { command: "mkdir -p sub/dir" });
    expect((await b.run("bash", { command: "pwd", workdir: "sub/dir" })).output).toBe(`${path.join(b.ws, "sub/dir")}\n`);
    const up = await b.run("bash", { command: "pwd", workdir: "../" });
    expect(up).toMatchObject({ isError: true });
    expect(up.output).toMatch(/refused: path "\.\.\/" climbs out of the workspace/);
    const abs = await b.run("bash", { command: "pwd", workdir: "/tmp" });
    expect(abs.output).toMatch(/refused: absolute path "\/tmp" is outside the workspace/);
    const missing = await b.run("bash", { command: "pwd", workdir: "nope" });
    expect(missing).toMatchObject({ isError: true });
    expect(missing.output).toMatch(/nope: no such file or directory/);
  });

  it("caps the output, keeping head and tail, and says so", async () => {
    const r = await b.run("bash", { command: "echo START; head -c 100000 /dev/zero | tr '\\0' x; echo; echo END" });
    expect(r.isError).toBe(false);
    expect(Buffer.byteLength(r.output)).toBeLessThan(4096 + 200);
    expect(r.output.startsWith("START\n")).toBe(true);
    expect(r.output.endsWith("END\n")).toBe(true);
    expect(r.output).toMatch(/\[output truncated: \d+ of 100011 bytes omitted; the limit is 4096 bytes\]/);
    expect(r.metadata).toMatchObject({ truncated: true });
  });

  it("kills the whole process group on timeout, background children included", async () => {
    const m = marker("timeout");
    const started = Date.now();
    const call = b.run("bash", { command: `: ${m}; sleep 30 & sleep 30; echo never`, timeout: 300 });
    const pgid = await pgidOf(m);
    const r = await call;
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(/bash: command timed out after 300 ms and was killed/);
    expect(r.metadata).toMatchObject({ timedOut: true });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(groupGone(pgid)).toBe(true);
  });

  it("escalates to SIGKILL for a command that ignores SIGTERM", async () => {
    const m = marker("stubborn");
    const call = b.run("bash", { command: `trap '' TERM; : ${m}; sleep 30; exit 0`, timeout: 200 });
    const pgid = await pgidOf(m);
    expect((await call).metadata).toMatchObject({ timedOut: true });
    expect(groupGone(pgid)).toBe(true);
  });

  it("kills the group when the call's signal aborts, and rethrows the abort reason", async () => {
    const ac = new AbortController();
    const m = marker("abort");
    const call = b.run("bash", { command: `: ${m}; sleep 30 & wait` }, { signal: ac.signal });
    const pgid = await pgidOf(m);
    expect(groupGone(pgid)).toBe(false);
    const reason = new Error("client went away");
    ac.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(groupGone(pgid)).toBe(true);
  });

  it("leaves nothing running in the background after the command returns", async () => {
    const m = marker("bg");
    const call = b.run("bash", { command: `: ${m}; (sleep 30 &) ; sleep 30 >/dev/null 2>&1 & sleep 0.2; echo started` });
    const pgid = await pgidOf(m);
    expect(await call).toMatchObject({ isError: false, output: "started\n" });
    expect(groupGone(pgid)).toBe(true);
  });

  it("closing the source kills running commands", async () => {
    const other = await makeBuiltins({ sandbox });
    const m = marker("close");
    const call = other.run("bash", { command: `: ${m}; sleep 30; exit 0` });
    const pgid = await pgidOf(m);
    await other.src.close();
    const r = await call;
    expect(r.isError).toBe(true);
    expect(groupGone(pgid)).toBe(true);
    await other.close();
  });

  it("refuses an empty command", async () => {
    expect(await b.run("bash", { command: "  " })).toMatchObject({ isError: true, output: "bash: command must not be empty" });
  });
});
