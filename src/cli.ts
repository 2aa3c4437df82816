#!/usr/bin/env node
import { parseArgs } from "node:util";
import nodeModule from "node:module";
import { call, callAsync } from "./cli-call.js";
import { loadCliConfig, toolkitOf } from "./cli-config.js";
import { HELP } from "./cli-help.js";
import { newKey } from "./cli-keys.js";
import { pinTickShape } from "./server/service/tick-shape.js";
import { fail, print } from "./cli-output.js";
import { mcpStdio, serve } from "./cli-serve.js";
import type { LoadedConfig } from "./config/load.js";
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

// Before the heavy modules load: a collection while they do must not cost every nextTick after.
void pinTickShape();

// Heavy modules (Fastify, the sources) load only for the command that needs them: --help stays instant.

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
  id: { type: "string" },
  key: { type: "string" },
  operator: { type: "boolean" },
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
      return serve(await loadCliConfig(values.config), values.host, values.port, values.insecure === true);
    case "mcp":
      return mcpStdio(await loadCliConfig(values.config));
    case "tools":
      return listTools(await loadCliConfig(values.config), values.json === true);
    case "call":
      if (values.async) return callAsync(rest[0], values.args, values.timeout, values.url ?? process.env.TOOLNEXUS_URL);
      return call(await loadCliConfig(values.config), rest[0], values.args, values.timeout, values.stream === true);
    case "pins": {
      if (values.url) {
        const { remotePinsCommand } = await import("./cli-pins-remote.js");
        const key = values.key ?? process.env.TOOLNEXUS_API_KEY;
        return remotePinsCommand(rest[0], rest[1], { url: values.url, key, json: values.json === true, print });
      }
      const loaded = await loadCliConfig(values.config);
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
    case "keys":
      return newKey(rest[0], values.id ?? "me", values.operator === true);
    default:
      return openapi(values.config, values["key-id"]);
  }
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

async function openapi(configPath: string | undefined, keyId: string | undefined): Promise<number> {
  const { genericOpenApi, deploymentOpenApi } = await import("./server/generic-openapi.js");
  // Only an explicit --config: the image sets TOOLNEXUS_CONFIG, and `openapi` alone stays generic.
  if (configPath === undefined && keyId !== undefined) return fail("--key-id needs --config PATH");
  process.stdout.write(configPath === undefined ? await genericOpenApi() : await deploymentOpenApi(await loadCliConfig(configPath), keyId));
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: Error) => {
    process.exitCode = fail(err.message);
  },
);
