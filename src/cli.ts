#!/usr/bin/env node
import { parseArgs } from "node:util";
import nodeModule from "node:module";
import type { LoadedConfig } from "./config/load.js";
import { ConfigError } from "./config/config-error.js";
import { isToolnexusError } from "./core/errors.js";
import type { Progress } from "./core/types.js";
import { exposureWarning, refusalReason } from "./server/service/startup-checks.js";
import { VERSION } from "./version.js";

// Node's on-disk cache of compiled modules (Node >= 22.1; NODE_COMPILE_CACHE picks the directory,
// NODE_DISABLE_COMPILE_CACHE=1 turns it off): the ~700 modules of a start-up compile from it after
// the first run. Enabled before the config loader and the server are imported, so they use it.
// Where the directory cannot be written (a read-only container) Node reports a status, no error;
// a Node without it just compiles.
try {
  nodeModule.enableCompileCache?.();
} catch {
  // the cache is an optimisation only
}

// Heavy modules (Fastify, the sources) load only for the command that needs them: --help stays instant.

const HELP: Record<string, string> = {
  main: `toolnexus ${VERSION} — one REST catalog for every tool an agent uses

Usage: toolnexus <command> [options]

Commands:
  serve     Serve the REST API
  mcp       Serve the catalog as an MCP server over stdio
  tools     List the tools of a config
  call      Run one tool once and print its output
  openapi   Print the OpenAPI document (generic, or of a config with --config)
  pins      List, approve or reset tool-definition pins

Run "toolnexus <command> --help" for a command's options.
The config path comes from --config, else TOOLNEXUS_CONFIG (a file, or a directory holding toolnexus.yaml).`,
  serve: `Usage: toolnexus serve [--config PATH] [--host HOST] [--port PORT] [--insecure]

Serves GET /tools, POST /tools/{name}/execute and the rest of the REST API.
--host and --port (or TOOLNEXUS_HOST / TOOLNEXUS_PORT) override server.host / server.port.
--insecure allows command and file built-ins without auth.apiKeys (same as server.insecure).
The config file is watched and reloaded on change, and on SIGHUP.
SIGTERM or SIGINT drains: readiness 503, in-flight calls get server.shutdownGraceMs, exit 0.`,
  mcp: `Usage: toolnexus mcp [--config PATH]

Serves the same catalog as an MCP server over stdio, for desktop MCP clients: tools/list,
tools/call (the same pipeline as REST: validation, limits, timeouts), and the skills prompt.
Stdout carries only MCP messages; logs go to stderr. Exits when stdin closes.`,
  tools: `Usage: toolnexus tools [--config PATH] [--json]

Lists every tool: name, source and description (--json: the GET /tools body).`,
  call: `Usage: toolnexus call <tool> [--args JSON] [--config PATH] [--timeout MS] [--stream]
       toolnexus call <tool> --async [--url URL] [--args JSON] [--timeout MS]

Runs one tool and prints its output.
--stream prints each progress report the tool makes as one line on stderr while it runs.
--async submits the call to the server at --url (or TOOLNEXUS_URL) as an execution and prints
its id; follow it with GET /executions/{id}. The API key is read from TOOLNEXUS_API_KEY.
Exit code: 0 ok, 1 the tool returned isError, 2 the call failed (unknown tool, bad arguments,
timeout, error): the same split as REST's 200 isError versus 4xx/5xx.`,
  openapi: `Usage: toolnexus openapi [--config PATH [--key-id ID]]

Prints an OpenAPI 3.1 document without a running server.
Alone: the generic routes (what openapi/openapi.json holds).
--config PATH: what a deployment of that config serves at /openapi.json, one typed operation
per tool (its sources are started to list their tools, then closed).
--key-id ID: only the tools the API key with that id (auth.apiKeys[].id) may use.`,
  pins: `Usage: toolnexus pins list [--config PATH] [--json]
       toolnexus pins approve <tool> [--config PATH]
       toolnexus pins reset <tool>|--all [--config PATH]

Tool-definition pins in the config's store (pinning.file, or Redis with redis:).
list: every tool with its state: pinned, changed (with what changed), new (held), absent.
approve: pins the definition the tool has now (its sources are started to read it); a running
service serves it again at once with Redis, within a second with a file.
reset: forgets a pin (or every pin): the tool is pinned afresh at its next sight.`,
};

const OPTIONS = {
  config: { type: "string", short: "c" },
  host: { type: "string" },
  port: { type: "string", short: "p" },
  json: { type: "boolean" },
  insecure: { type: "boolean" },
  args: { type: "string", short: "a" },
  timeout: { type: "string" },
  stream: { type: "boolean" },
  "key-id": { type: "string" },
  async: { type: "boolean" },
  url: { type: "string" },
  all: { type: "boolean" },
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
    case "serve":
      return serve(await config(values.config), values.host, values.port, values.insecure === true);
    case "mcp":
      return mcpStdio(await config(values.config));
    case "tools":
      return listTools(await config(values.config), values.json === true);
    case "call":
      if (values.async) return callAsync(rest[0], values.args, values.timeout, values.url ?? process.env.TOOLNEXUS_URL);
      return call(await config(values.config), rest[0], values.args, values.timeout, values.stream === true);
    case "pins": {
      const loaded = await config(values.config);
      const [{ pinsCommand }, { default: pino }] = await Promise.all([import("./cli-pins.js"), import("pino")]);
      const logger = pino({ level: process.env.TOOLNEXUS_LOG_LEVEL ?? "warn" }, pino.destination(2));
      return pinsCommand(
        loaded,
        rest[0],
        rest[1],
        { json: values.json === true, all: values.all === true },
        { toolkit: () => toolkitOf(loaded), logger, print },
      );
    }
    default:
      return openapi(values.config, values["key-id"]);
  }
}

async function config(explicit: string | undefined): Promise<LoadedConfig> {
  // Imported here, after the compile cache is on (static imports compile before any code runs).
  const { configPathFrom, loadConfig } = await import("./config/load.js");
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

async function mcpStdio(loaded: LoadedConfig): Promise<number> {
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

async function call(
  loaded: LoadedConfig,
  name: string | undefined,
  argsJson: string | undefined,
  timeout: string | undefined,
  stream = false,
): Promise<number> {
  if (!name) return print(HELP.call ?? "", 2);
  const args = parseArgsJson(argsJson);
  if (typeof args === "string") return fail(args);
  const ms = Number(timeout ?? loaded.config.server.timeoutMs);
  if (!Number.isInteger(ms) || ms <= 0) return fail("--timeout must be a positive whole number of milliseconds");
  const tk = await toolkitOf(loaded);
  const signal = AbortSignal.timeout(ms);
  // A timeout is a failure (2), as REST's 504, even when the tool turned its abort into an isError result.
  const timedOut = () => fail(`${name} timed out after ${ms} ms`);
  try {
    const onProgress = stream ? (p: Progress) => console.error(progressLine(p)) : undefined;
    const result = await tk.execute(name, args, { signal, timeout: ms, ...(onProgress ? { onProgress } : {}) });
    if (signal.aborted) return timedOut();
    if (result.isError) console.error(result.output);
    else console.log(result.output);
    if (result.metadata?.pending) console.error(JSON.stringify({ pending: result.metadata.pending }));
    return result.isError ? 1 : 0;
  } catch (err) {
    if (signal.aborted) return timedOut();
    if (isToolnexusError(err) && err.errors)
      return fail(`${err.message}: ${err.errors.map((e) => `${e.pointer || "/"} ${e.message}`).join("; ")}`);
    return fail((err as Error).message);
  } finally {
    await tk.close();
  }
}

/** The `--args` JSON object, or why it is not one. */
function parseArgsJson(argsJson: string | undefined): Record<string, unknown> | string {
  let args: unknown;
  try {
    args = JSON.parse(argsJson ?? "{}");
  } catch (err) {
    return `--args is not valid JSON: ${(err as Error).message}`;
  }
  return typeof args === "object" && args !== null && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : "--args must be a JSON object";
}

/** One progress report as a line: `progress 3/5 message`. */
function progressLine({ progress, total, message }: Progress): string {
  return `progress ${progress}${total === undefined ? "" : `/${total}`}${message ? ` ${message}` : ""}`;
}

async function callAsync(
  name: string | undefined,
  argsJson: string | undefined,
  timeout: string | undefined,
  url: string | undefined,
): Promise<number> {
  if (!name) return print(HELP.call ?? "", 2);
  if (!url) return fail("--async submits to a running server: pass --url URL or set TOOLNEXUS_URL");
  const args = parseArgsJson(argsJson);
  if (typeof args === "string") return fail(args);
  const { submitExecution } = await import("./cli-async.js");
  return submitExecution(url, name, args, timeout === undefined ? undefined : Number(timeout));
}

async function openapi(configPath: string | undefined, keyId: string | undefined): Promise<number> {
  const { genericOpenApi, deploymentOpenApi } = await import("./server/generic-openapi.js");
  // Only an explicit --config: the image sets TOOLNEXUS_CONFIG, and `openapi` alone stays generic.
  if (configPath === undefined && keyId !== undefined) return fail("--key-id needs --config PATH");
  process.stdout.write(configPath === undefined ? await genericOpenApi() : await deploymentOpenApi(await config(configPath), keyId));
  return 0;
}

async function toolkitOf(loaded: LoadedConfig) {
  const [{ createToolkit }, { default: pino }] = await Promise.all([import("./create-toolkit.js"), import("pino")]);
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
  (code) => {
    process.exitCode = code;
  },
  (err: Error) => {
    process.exitCode = fail(err.message);
  },
);
