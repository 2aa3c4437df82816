import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./free-port.js";
import { eventually } from "./wait.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SOURCE = path.resolve(ROOT, "../shared/conformance/mcp-everything-server");
// The same place scripts/tests.d/conformance.sh installs it: one install serves both.
const DIR = path.join(ROOT, ".tmp/everything-server");

/** The conformance suite's reference server, behind a proxy that records every JSON-RPC request it gets. */
export interface ReferenceServer {
  /** Its streamable HTTP endpoint, through the recording proxy. */
  url: string;
  /** Every JSON-RPC request body that reached it, in order. */
  received: { method?: string; params?: Record<string, unknown> }[];
  close(): Promise<void>;
}

/** Installs the reference server under .tmp (once, with npm ci) and returns its directory. */
function install(): string {
  mkdirSync(DIR, { recursive: true });
  for (const f of ["everything-server.ts", "package.json", "package-lock.json"]) copyFileSync(path.join(SOURCE, f), path.join(DIR, f));
  if (!existsSync(path.join(DIR, "node_modules/tsx")))
    execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: DIR, stdio: "ignore" });
  return DIR;
}

/** Starts the reference server (tsx) on a free port, and the recording proxy in front of it. */
export async function startReferenceServer(): Promise<ReferenceServer> {
  const dir = install();
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [path.join(dir, "node_modules/tsx/dist/cli.mjs"), "everything-server.ts"], {
    cwd: dir,
    env: { ...process.env, PORT: String(port) },
    stdio: "ignore",
  });
  await eventually(
    () =>
      fetch(`http://localhost:${port}/mcp`).then(
        (r) => r.status < 500,
        () => false,
      ),
    { timeoutMs: 30_000, everyMs: 200 },
  );
  const received: ReferenceServer["received"] = [];
  const proxy = recordingProxy(port, received);
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`,
    received,
    async close() {
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
      child.kill();
    },
  };
}

function recordingProxy(port: number, received: ReferenceServer["received"]): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      if (body.length > 0) {
        try {
          received.push(JSON.parse(body.toString("utf8")) as ReferenceServer["received"][number]);
        } catch {
          // not JSON: forwarded all the same
        }
      }
      const headers = { ...req.headers, host: `localhost:${port}` };
      const up = request({ host: "localhost", port, path: req.url, method: req.method, headers }, (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      });
      up.on("error", () => res.destroy());
      up.end(body);
    });
  });
}
