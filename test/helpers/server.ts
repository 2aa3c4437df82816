import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { buildServer, type BuildServerOptions, type ToolnexusServer } from "../../src/server/build-server.js";

/** A running server on a random loopback port, with every log line captured. */
export interface TestServer {
  app: ToolnexusServer;
  url: string;
  logs: Record<string, unknown>[];
  /** Raw log text, for asserting a secret never appears. */
  logText(): string;
  close(): Promise<void>;
}

/** Starts buildServer on 127.0.0.1 (a random port unless `port` says) and waits until its sources are loaded. */
export async function startServer(opts: BuildServerOptions = {}, port = 0): Promise<TestServer> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      cb();
    },
  });
  const app = await buildServer({ logger: { level: "debug" }, logDestination: sink, ...opts });
  await app.listen({ host: "127.0.0.1", port });
  await app.toolnexus.ready;
  const bound = (app.server.address() as AddressInfo).port;
  return {
    app,
    url: `http://127.0.0.1:${bound}`,
    get logs() {
      return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    logText: () => lines.join("\n"),
    close: () => app.close(),
  };
}
