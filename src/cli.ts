#!/usr/bin/env node
import { parseArgs } from "node:util";
import { createRequire } from "node:module";
import { configPathFrom, loadConfig, type LoadedConfig } from "./config/load.js";
import { ConfigError } from "./config/config-error.js";
import { isToolnexusError } from "./core/errors.js";
import { exposureWarning, refusalReason } from "./server/startup-checks.js";

// Heavy modules (Fastify, the sources) load only for the command that needs them: --help stays instant.
const { version: VERSION } = createRequire(import.meta.url)("../package.json") as { version: string };

const HELP: Record<string, string> = {
  main: `toolnexus ${VERSION} — one REST catalog for every tool an agent uses

Usage: toolnexus <command> [options]

Commands:
  serve     Serve the REST API
  tools     List the tools of a config
  call      Run one tool once and print its output
  openapi   Print the OpenAPI document of the generic routes

Run "toolnexus <command> --help" for a command's options.
The config path comes from --config, else TOOLNEXUS_CONFIG (a file, or a directory holding toolnexus.yaml).`,
  serve: `Usage: toolnexus serve [--config PATH] [--host HOST] [--port PORT] [--insecure]

Serves GET /tools, POST /tools/{name}/execute and the rest of the REST API.
--host and --port (or TOOLNEXUS_HOST / TOOLNEXUS_PORT) override server.host / server.port.
--insecure allows command and file built-ins without auth.apiKeys (same as server.insecure).
The config file is watched and reloaded on change, and on SIGHUP.
SIGTERM or SIGINT drains: readiness 503, in-flight calls get server.shutdownGraceMs, exit 0.`,
  tools: `Usage: toolnexus tools [--config PATH] [--json]

Lists every tool: name, source and description (--json: the GET /tools body).`,
  call: `Usage: toolnexus call <tool> [--args JSON] [--config PATH] [--timeout MS]
       toolnexus call <tool> --async [--url URL] [--args JSON] [--timeout MS]

Runs one tool and prints its output.
Exit code: 0 ok, 1 the tool returned isError, 2 the call failed (unknown tool, bad arguments, error).
--async submits the call to the server at --url (or TOOLNEXUS_URL) as an execution and prints
its id; follow it with GET /executions/{id}. The API key is read from TOOLNEXUS_API_KEY.`,
  openapi: `Usage: toolnexus openapi

Prints the OpenAPI 3.1 document of the generic routes (what openapi/openapi.json holds).`,
};

const OPTIONS = {
  config: { type: "string", short: "c" },
  host: { type: "string" },
  port: { type: "string", short: "p" },
  json: { type: "boolean" },
  insecure: { type: "boolean" },
  args: { type: "string", short: "a" },
  timeout: { type: "string" },
  async: { type: "boolean" },
  url: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [command, ...rest] = positionals;
  if (values.version) return print(VERSION);
  if (!command || !(command in HELP) || command === "main") return print(HELP.main ?? "", command && command !== "main" ? 2 : 0);
  if (values.help) return print(HELP[command] ?? "");

  switch (command) {
    case "serve": return serve(await config(values.config), values.host, values.port, values.insecure === true);
    case "tools": return listTools(await config(values.config), values.json === true);
    case "call":
      if (values.async) return callAsync(rest[0], values.args, values.timeout, values.url ?? process.env.TOOLNEXUS_URL);
      return call(await config(values.config), rest[0], values.args, values.timeout);
    default: return openapi();
  }
}

async function config(explicit: string | undefined): Promise<LoadedConfig> {
  const p = configPathFrom(explicit);
  if (!p) throw new ConfigError([{ pointer: "", message: "no config given: pass --config PATH or set TOOLNEXUS_CONFIG" }]);
  return loadConfig(p);
}

async function serve(loaded: LoadedConfig, host?: string, port?: string, insecure = false): Promise<number> {
  const refusal = refusalReason(loaded.config, insecure);
  if (refusal) return print(refusal, 2);
  const { buildServer } = await import("./server/build-server.js");
  const app = await buildServer({ config: loaded, watch: true, insecure });
  const listenHost = host ?? process.env.TOOLNEXUS_HOST ?? loaded.config.server.host;
  const listenPort = Number(port ?? process.env.TOOLNEXUS_PORT ?? loaded.config.server.port);
  const warning = exposureWarning(loaded.config, listenHost);
  if (warning) app.log.warn(warning);
  process.on("SIGHUP", () => void app.toolnexus.reload());
  await app.listen({ host: listenHost, port: listenPort });
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

async function listTools(loaded: LoadedConfig, json: boolean): Promise<number> {
  const tk = await toolkitOf(loaded);
  try {
    const tools = tk.tools().map(({ name, description, inputSchema, source }) => ({ name, description, inputSchema, source }));
    if (json) return print(JSON.stringify({ tools }, null, 2));
    for (const t of tools) console.log(`${t.name.padEnd(32)} ${t.source.padEnd(8)} ${t.description.split("\n", 1)[0] ?? ""}`);
    for (const s of tk.status().filter((s) => s.state === "failed")) console.error(`failed: ${s.source} ${s.name}: ${s.error ?? ""}`);
    return 0;
  } finally {
    await tk.close();
  }
}

async function call(loaded: LoadedConfig, name: string | undefined, argsJson: string | undefined, timeout: string | undefined): Promise<number> {
  if (!name) return print(HELP.call ?? "", 2);
  let args: unknown;
  try {
    args = JSON.parse(argsJson ?? "{}");
  } catch (err) {
    return fail(`--args is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) return fail("--args must be a JSON object");
  const tk = await toolkitOf(loaded);
  const ms = Number(timeout ?? loaded.config.server.timeoutMs);
  try {
    const result = await tk.execute(name, args as Record<string, unknown>, { signal: AbortSignal.timeout(ms), timeout: ms });
    if (result.isError) console.error(result.output);
    else console.log(result.output);
    if (result.metadata?.pending) console.error(JSON.stringify({ pending: result.metadata.pending }));
    return result.isError ? 1 : 0;
  } catch (err) {
    if (isToolnexusError(err) && err.errors) return fail(`${err.message}: ${err.errors.map((e) => `${e.pointer || "/"} ${e.message}`).join("; ")}`);
    return fail((err as Error).message);
  } finally {
    await tk.close();
  }
}

async function callAsync(name: string | undefined, argsJson: string | undefined, timeout: string | undefined, url: string | undefined): Promise<number> {
  if (!name) return print(HELP.call ?? "", 2);
  if (!url) return fail("--async submits to a running server: pass --url URL or set TOOLNEXUS_URL");
  let args: unknown;
  try {
    args = JSON.parse(argsJson ?? "{}");
  } catch (err) {
    return fail(`--args is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) return fail("--args must be a JSON object");
  const { submitExecution } = await import("./cli-async.js");
  return submitExecution(url, name, args as Record<string, unknown>, timeout === undefined ? undefined : Number(timeout));
}

async function openapi(): Promise<number> {
  const { genericOpenApi } = await import("./server/generic-openapi.js");
  process.stdout.write(await genericOpenApi());
  return 0;
}

async function toolkitOf(loaded: LoadedConfig) {
  const [{ createToolkit }, { pino }] = await Promise.all([import("./create-toolkit.js"), import("pino")]);
  return createToolkit(loaded, { logger: pino({ level: process.env.TOOLNEXUS_LOG_LEVEL ?? "warn" }, pino.destination(2)) });
}

function print(text: string, code = 0): number {
  (code === 0 ? process.stdout : process.stderr).write(`${text}\n`);
  return code;
}

function fail(message: string): number {
  return print(`error: ${message}`, 2);
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err: Error) => { process.exitCode = fail(err.message); },
);
