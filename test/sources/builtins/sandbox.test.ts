import { readFileSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { makeBuiltins, type Builtins } from "./helpers.js";
import { marker, processesWith } from "./process-check.js";

// One entry of the environment this service was started with that bash's scrubbed environment
// (PATH, HOME, LANG, TMPDIR) does not carry: it stands for the secrets in /proc/<pid>/environ.
const SERVICE_ENTRY =
  readFileSync("/proc/self/environ", "utf8")
    .split("\0")
    .find((e) => e.includes("=") && !/^(PATH|HOME|LANG|TMPDIR)=/.test(e)) ?? "";

// Each behaviour is shown against the same command without the sandbox, which must expose
// what the sandbox hides: so every test here fails when the sandbox does not do its job.
let sandboxed: Builtins;
let bare: Builtins;
beforeAll(async () => {
  expect(SERVICE_ENTRY).not.toBe("");
  sandboxed = await makeBuiltins({ sandbox: { mode: "bubblewrap", network: true }, hide: ["/etc/hostname", "/etc/ssl"] });
  bare = await makeBuiltins({ sandbox: { mode: "off", network: true }, hide: ["/etc/hostname", "/etc/ssl"] });
});
afterAll(async () => {
  await sandboxed.close();
  await bare.close();
});

describe("builtins.sandbox: bubblewrap", () => {
  it("says so in status", () => {
    expect(sandboxed.src.status()).toMatchObject({ state: "connected", sandbox: "bubblewrap" });
    expect(bare.src.status().sandbox).toBe("none — a key allowed to use bash can read this service's secrets");
  });

  it("bash cannot read the service's /proc/<pid>/environ, nor see any process of the service", async () => {
    const command = `cat /proc/${process.pid}/environ | tr '\\0' '\\n'; for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ; done 2>/dev/null; ls /proc | grep -cE '^[0-9]+$'`;
    const inside = await sandboxed.run("bash", { command });
    expect(inside.output).toMatch(new RegExp(`/proc/${process.pid}/environ: No such file or directory`));
    expect(inside.output).not.toContain(SERVICE_ENTRY);
    // Its own PID namespace: only bwrap's init, the shell and the command's own processes.
    expect(Number(inside.output.trim().split("\n").at(-1))).toBeLessThan(10);

    const outside = await bare.run("bash", { command });
    expect(outside.output).toContain(SERVICE_ENTRY);
  });

  it("bash cannot read a config file outside the workspace, nor the service's files under /etc", async () => {
    const config = path.join(sandboxed.outside, "toolnexus.yaml");
    await writeFile(config, "server: { stateSecret: sandbox-test-secret-value }\n");
    const bareConfig = path.join(bare.outside, "toolnexus.yaml");
    await writeFile(bareConfig, "server: { stateSecret: sandbox-test-secret-value }\n");
    // /etc/hostname and /etc/ssl stand for a config file and directory under /etc (the image's /etc/toolnexus).
    const probe = (file: string) =>
      `cat ${file}; echo "[$(cat /etc/hostname 2>/dev/null)]"; ls -A /etc/ssl | wc -l; cat /etc/shadow 2>/dev/null | wc -c`;

    const inside = await sandboxed.run("bash", { command: probe(config) });
    expect(inside.output).toContain(`${config}: No such file or directory`);
    expect(inside.output).not.toContain("sandbox-test-secret-value");
    expect(inside.output.trim().split("\n").slice(-3)).toEqual(["[]", "0", "0"]);

    const outside = await bare.run("bash", { command: probe(bareConfig) });
    expect(outside.output).toContain("sandbox-test-secret-value");
    const [hostname, ssl, shadow] = outside.output.trim().split("\n").slice(-3);
    expect([hostname === "[]", Number(ssl) > 0, Number(shadow) > 0]).toEqual([false, true, true]);
  });

  it("bash reads and writes the workspace (at its own path), and nothing else of the host", async () => {
    const probe = marker("tmp");
    // Were the sandbox missing, these would land on the host: never leave them there.
    onTestFinished(() => Promise.all([`/tmp/${probe}`, `/usr/${probe}`].map((f) => rm(f, { force: true }))).then(() => undefined));
    await sandboxed.run("write", { path: "from-tool.txt", content: "written by the write tool\n" });
    const r = await sandboxed.run("bash", {
      command: `pwd; cat from-tool.txt; echo "written by bash" > from-bash.txt; mkdir -p sub && echo deep > sub/f; touch /usr/${probe} 2>&1; echo tmp > /tmp/${probe} && echo tmp-ok`,
    });
    expect(r.output).toBe(
      `${sandboxed.ws}\nwritten by the write tool\ntouch: cannot touch '/usr/${probe}': Read-only file system\ntmp-ok\n`,
    );
    expect(await readFile(path.join(sandboxed.ws, "from-bash.txt"), "utf8")).toBe("written by bash\n");
    expect((await sandboxed.run("read", { path: "sub/f" })).output).toContain("deep");
    // Its /tmp is its own.
    await expect(readFile(`/tmp/${probe}`, "utf8")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("a cancelled call leaves no process behind, even one that left the process group with setsid", async () => {
    const run = async (b: Builtins) => {
      const [m, escaped] = [marker("cancel"), marker("setsid")];
      const ac = new AbortController();
      const call = b.run(
        "bash",
        { command: `: ${m}; setsid bash -c ': ${escaped}; sleep 30; exit 0' & sleep 30 & wait` },
        { signal: ac.signal },
      );
      // Wait for the escaped shell itself (the parent's command line holds its marker too).
      const escapedRuns = () => processesWith(escaped).some((p) => !processesWith(m).some((q) => q.pid === p.pid));
      for (let i = 0; i < 500 && !escapedRuns(); i++) await new Promise((r) => setTimeout(r, 10));
      expect(escapedRuns()).toBe(true);
      ac.abort(new Error("cancelled"));
      await expect(call).rejects.toThrow("cancelled");
      const left = [...processesWith(m), ...processesWith(escaped)];
      onTestFinished(() => left.forEach((p) => process.kill(p.pid, "SIGKILL")));
      return left.length;
    };
    expect(await run(sandboxed)).toBe(0);
    // Without the sandbox, the process that left the group survives the cancellation.
    expect(await run(bare)).toBeGreaterThan(0);
  });

  it("network: false gives commands no network; the default keeps it", async () => {
    const server = net.createServer((socket) => socket.end("hello from the host\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => void server.close());
    const { port } = server.address() as net.AddressInfo;
    const command = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`;
    expect((await sandboxed.run("bash", { command })).output).toBe("hello from the host\n");

    const offline = await makeBuiltins({ sandbox: { mode: "bubblewrap", network: false } });
    onTestFinished(() => offline.close());
    expect(offline.src.status().sandbox).toBe("bubblewrap (network off)");
    const r = await offline.run("bash", { command });
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(/Connection refused|Network is unreachable/);
  });
});
