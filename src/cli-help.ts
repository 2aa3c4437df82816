// The help text of every command, apart from cli.ts so the entry reads as the dispatch it is.
import { VERSION } from "./version.js";

/** The help of the program (`main`) and of each command, by the command's name. */
export const HELP: Record<string, string> = {
  main: `toolnexus ${VERSION} — one REST catalog for every tool an agent uses

Usage: toolnexus <command> [options]

Commands:
  serve     Serve the REST API
  mcp       Serve the catalog as an MCP server over stdio
  tools     List the tools of a config
  call      Run one tool once and print its output
  openapi   Print the OpenAPI document (generic, or of a config with --config)
  pins      List, approve or reset tool-definition pins
  keys      Make a fresh API key and print the config line that accepts it

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
reset: forgets a pin (or every pin): the tool is pinned afresh at its next sight.

Against a running service, with an operator key and none of the config's secrets:
       toolnexus pins list|approve <tool> --url URL [--key KEY] [--json]
The key comes from --key, else TOOLNEXUS_API_KEY (safer: a command line is visible to others).`,
  keys: `Usage: toolnexus keys new [--id ID] [--operator]

Prints a fresh random API key (32 bytes, hex) and how to use it: the auth.apiKeys line for the
config (the key read from an environment variable, so the file holds no secret), the variable
to export, and the header a client sends. --operator marks it an operator key (GET /status,
/metrics, /admin). Nothing is written: paste the line into the config yourself.`,
};
