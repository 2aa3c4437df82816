import { spawn } from "node:child_process";
import path from "node:path";
import { freePort } from "./free-port.js";
import { eventually } from "./wait.js";

/** The `toolnexus` bin: the bundled CLI (`npm run build`; the vitest global setup builds it). */
export const CLI = path.resolve(import.meta.dirname, "../../dist/bundle/cli.js");

/** A `toolnexus serve` child process on a random loopback port. */
export interface ServeProcess {
  url: string;
  /** Its complete stdout log lines so far, parsed (they may arrive after the HTTP response they concern). */
  logs(): Record<string, unknown>[];
  /** Everything it wrote, for asserting a secret never appears. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts `node dist/bundle/cli.js serve --config <config>` (in `env`, on `port` or a free one) and waits until /readyz is 200. */
export async function startServeProcess(config: string, env: NodeJS.ProcessEnv = process.env, port?: number): Promise<ServeProcess> {
  port ??= await freePort();
  const child = spawn(process.execPath, [CLI, "serve", "--config", config, "--port", String(port), "--host", "127.0.0.1"], {
    stdio: ["ignore", "pipe", "pipe"],
    env,
  });
  // stdout apart from the whole: a chunk ends anywhere, and a stderr chunk must not split a log line.
  let out = "";
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => {
    out += c;
    stdout += c;
  });
  child.stderr.setEncoding("utf8").on("data", (c: string) => (out += c));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  try {
    await eventually(
      async () =>
        child.exitCode === null &&
        (await fetch(`${url}/readyz`).then(
          (r) => r.status === 200,
          () => false,
        )),
      { timeoutMs: 30_000, everyMs: 50 },
    );
  } catch (err) {
    await stop();
    throw new Error(`serve did not become ready: ${out}`, { cause: err });
  }
  return {
    url,
    // Only lines already ended by their newline: the last one may still be arriving.
    logs: () =>
      stdout
        .slice(0, stdout.lastIndexOf("\n") + 1)
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    output: () => out,
    stop,
  };
}
