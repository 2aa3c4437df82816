// The MCP hop's floors: server-everything over stdio or streamable HTTP, and a direct client on
// the v2 SDK (`@modelcontextprotocol/client`, the client the gateway itself runs) to the same
// kind of server. Shared by bench/compare.mjs (scenarios `mcp` and `mcphttp`) and bench/mcp.mjs.
import { spawn } from "node:child_process";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { EVERYTHING, freePort } from "./lib.mjs";

/** server-everything in its `streamableHttp` mode on a free port of 127.0.0.1 (it reads PORT); resolves once it listens. */
export async function startEverythingHttp() {
  const port = await freePort();
  // It logs a line per request on stdout: ignored. It says it listens on stderr.
  const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, PORT: String(port) },
  });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("server-everything (streamableHttp) did not listen in 30 s")), 30_000);
    let seen = "";
    child.stderr.on("data", (d) => {
      seen += d;
      if (seen.includes("listening")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`server-everything exited with ${code}: ${seen}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    pid: child.pid,
    stop: () =>
      new Promise((r) => {
        if (child.exitCode !== null) return r();
        child.once("exit", r);
        child.kill("SIGKILL");
      }),
  };
}

/**
 * A direct v2 client with one session to server-everything: over stdio (its own child process,
 * `pid`) or to `url` (streamable HTTP). `call()` is one `echo` tools/call, checked.
 */
export async function directClient(url) {
  const client = new Client({ name: "bench", version: "0" });
  const transport = url
    ? new StreamableHTTPClientTransport(new URL(url))
    : new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "ignore" });
  await client.connect(transport);
  return {
    pid: url ? undefined : transport.pid,
    call: async () => {
      const r = await client.callTool({ name: "echo", arguments: { message: "hello" } });
      if (r.content?.[0]?.text !== "Echo: hello") throw new Error("bad echo");
    },
    close: () => client.close().catch(() => {}),
  };
}
