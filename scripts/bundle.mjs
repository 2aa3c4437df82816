// Bundles the CLI (dist/cli.js, from `tsc`) into dist/bundle/: the served path loads a few dozen
// files instead of ~700 modules, which is most of its start-up (Node's module resolution, stat
// calls and per-module compile; see bench/README.md). Lazy imports stay lazy (code splitting), so
// `toolnexus --help` still loads no server. Run by `npm run build` after tsc.
import { readFileSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { builtinModules } from "node:module";
import { build } from "esbuild";

const root = path.resolve(import.meta.dirname, "..");
const { version } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const outdir = path.join(root, "dist", "bundle");

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [path.join(root, "dist", "cli.js")],
  outdir,
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node22",
  // Tracing loads only when configured, from the packages themselves: their CommonJS builds
  // import each other dynamically, which a bundle would leave without named exports.
  external: [
    "@opentelemetry/sdk-trace-node",
    "@opentelemetry/resources",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/exporter-trace-otlp-proto",
  ],
  // The CommonJS packages inside an ESM bundle call require() for Node's built-ins.
  banner: { js: 'import { createRequire as __tnRequire } from "node:module"; const require = __tnRequire(import.meta.url);' },
  logLevel: "warning",
  plugins: [
    {
      // Node's built-ins load through require(): importing node:http as an ES module makes Node
      // build its ESM facade, which reads every export, lazy getters included (undici's
      // WebSocket and friends): ~45 ms of start-up on Node 24 that require() does not pay.
      name: "builtins-by-require",
      setup(b) {
        const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
        b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) =>
          builtins.has(args.path) && args.kind === "import-statement" ? { path: args.path, namespace: "builtin" } : undefined,
        );
        b.onLoad({ filter: /.*/, namespace: "builtin" }, (args) => ({
          contents: `module.exports = require(${JSON.stringify(args.path)});`,
        }));
      },
    },
    {
      // @fastify/swagger-ui finds its static files (Swagger UI itself) through __dirname, which
      // an ES module bundle lacks: its two files get the installed package's directory instead.
      name: "swagger-ui-dirname",
      setup(b) {
        b.onLoad({ filter: /[\\/]@fastify[\\/]swagger-ui[\\/](index|lib[\\/]routes)\.js$/ }, async (args) => {
          const sub = args.path.endsWith("index.js") ? "" : "lib";
          const dir = `require("node:path").join(require("node:path").dirname(require.resolve("@fastify/swagger-ui")), ${JSON.stringify(sub)})`;
          return { contents: `var __dirname = ${dir};\n${await readFile(args.path, "utf8")}`, loader: "js" };
        });
      },
    },
    {
      // dist/version.js reads package.json relative to itself; the bundle carries the literal.
      name: "version",
      setup(b) {
        b.onLoad({ filter: /[\\/]dist[\\/]version\.js$/ }, () => ({ contents: `export const VERSION = ${JSON.stringify(version)};` }));
      },
    },
  ],
});
