// The two commands that serve until stopped: `serve` (the REST API) and `mcp` (the catalog over stdio).
import type { LoadedConfig } from "./config/load.js";
import { print } from "./cli-output.js";
import { exposureWarning, listenFailure, protectionRefusal, refusalReason } from "./server/service/startup-checks.js";

/** `toolnexus serve`: listens until SIGTERM or SIGINT, then drains; exit 2 when it cannot start. */
export async function serve(loaded: LoadedConfig, host?: string, port?: string, insecure = false): Promise<number> {
  const refusal = refusalReason(loaded.config, insecure) ?? (await protectionRefusal(loaded));
  if (refusal) return print(refusal, 2);
  const { buildServer } = await import("./server/build-server.js");
  const app = await buildServer({ config: loaded, watch: true, insecure });
  const listenHost = host ?? process.env.TOOLNEXUS_HOST ?? loaded.config.server.host;
  const listenPort = Number(port ?? process.env.TOOLNEXUS_PORT ?? loaded.config.server.port);
  const warning = exposureWarning(loaded.config, listenHost);
  if (warning) app.log.warn(warning);
  process.on("SIGHUP", () => void app.toolnexus.reload());
  try {
    await app.listen({ host: listenHost, port: listenPort });
  } catch (err) {
    print(listenFailure(err, listenHost, listenPort), 2);
    // Sources already started (stdio MCP servers, watchers) would keep the process alive: close
    // them, but never wait longer than a moment before exiting.
    await Promise.race([app.close().catch(() => undefined), new Promise((r) => setTimeout(r, 500).unref())]);
    process.exit(2);
  }
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      app.log.info({ signal }, "shutting down");
      app.toolnexus.shutdown().finally(resolve);
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
  return 0;
}

/** `toolnexus mcp`: the catalog as an MCP server on stdin and stdout, until stdin closes. */
export async function mcpStdio(loaded: LoadedConfig): Promise<number> {
  // Stdout is the protocol channel: a plugin's console.log must not corrupt it.
  console.log = console.info = console.debug = console.error;
  // pino is CommonJS: its `default` is the one export a bundle's dynamic import of it carries.
  const [{ buildServer }, { serveStdio }, { default: pino }] = await Promise.all([
    import("./server/build-server.js"),
    import("./server/mcp/transport/stdio.js"),
    import("pino"),
  ]);
  const app = await buildServer({ config: loaded, logDestination: pino.destination(2), auditDestination: pino.destination(2) });
  await serveStdio(app);
  return 0;
}
