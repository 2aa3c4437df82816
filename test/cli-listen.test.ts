import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { listenFailure } from "../src/server/service/startup-checks.js";

/** `serve` that cannot listen says where and why in one line and exits, instead of hanging. */
const root = path.resolve(import.meta.dirname, "..");
const cli = path.join(root, "dist/bundle/cli.js");

describe("serve on an address it cannot listen on", () => {
  it("exits 2 within 2 s with one line naming the address", async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
    onTestFinished(() => void taken.close());
    const { port } = taken.address() as net.AddressInfo;
    const child = spawn(
      process.execPath,
      [cli, "serve", "--config", path.join(root, "examples/config"), "--host", "127.0.0.1", "--port", String(port)],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    const exited = new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
    onTestFinished(() => void child.kill("SIGKILL"));
    // The 2 s run from the line saying it cannot listen: start-up before it is not what is bounded.
    const said = new Promise<void>((resolve) =>
      child.stderr.setEncoding("utf8").on("data", (c: string) => {
        stderr += c;
        resolve();
      }),
    );
    await Promise.race([said, exited]);
    const code = await Promise.race([exited, new Promise<"still running">((r) => setTimeout(() => r("still running"), 2_000))]);
    expect(code, stderr).toBe(2);
    expect(stderr.trim()).toBe(
      `error: cannot listen on 127.0.0.1:${port}: the address is already in use (another process listens there: stop it or pass --port) [EADDRINUSE]`,
    );
  });

  it("words permission and unknown errors with the address", () => {
    expect(listenFailure(Object.assign(new Error("x"), { code: "EACCES" }), "::1", 80)).toBe(
      "error: cannot listen on [::1]:80: permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE: pass --port) [EACCES]",
    );
    expect(listenFailure(new Error("boom"), "0.0.0.0", 9)).toBe("error: cannot listen on 0.0.0.0:9: boom");
  });
});
