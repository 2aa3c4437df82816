import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import { freePort } from "./free-port.js";

/** A real redis-server on a loopback port, without persistence. */
export interface RedisServer {
  url: string;
  port: number;
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port (an outage that ends). */
  restart(): Promise<void>;
}

/** Starts `redis-server` on a free (or the given) port and waits until it accepts connections. */
export async function startRedis(port?: number): Promise<RedisServer> {
  const p = port ?? (await freePort());
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn("redis-server", ["--port", String(p), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
    await waitForPort(p, child);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${p}`,
    port: p,
    async stop() {
      const c = child;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((r) => c.once("exit", r));
      c.kill("SIGTERM");
      await exited;
    },
    restart: start,
  };
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  const end = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.end();
        resolve(true);
      });
      s.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error("redis-server did not start");
    await new Promise((r) => setTimeout(r, 50));
  }
}
