import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeConfig } from "../../src/config/load.js";
import type { ConfigError } from "../../src/config/config-error.js";
import { blocksOf, type Block } from "../helpers/doc-snippets.js";
import { freePort } from "../helpers/free-port.js";
import { CLI, startServeProcess, type ServeProcess } from "../helpers/serve-process.js";

/**
 * Docs that run: every shell and YAML fence of README.md and docs/*.md says what it is, in its
 * info string (renderers read only the language):
 * - `run=EXAMPLE`: a command run as written against `toolnexus serve --config examples/EXAMPLE`
 *   (one server per example; `localhost:8080` and `127.0.0.1:8080` become its address; `curl`
 *   fails on an HTTP error, so a tool the examples lack fails the page);
 * - `config`: a config (or part of one) that the config loader must accept;
 * - `doctest=GROUP`: a client example, run by doc-snippets.test.ts;
 * - `norun`: not runnable here (a placeholder to fill in, docker, kubectl, a server of yours).
 */
const root = path.resolve(import.meta.dirname, "../..");
const PAGES = [
  "README.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const RUNNABLE_LANGS = new Set(["sh", "bash", "shell", "console", "yaml", "yml"]);
const blocks = PAGES.flatMap((p) => blocksOf(readFileSync(path.join(root, p), "utf8"), p));
/** What the curl wrapper below writes to stderr before each response's status. */
const STATUS = "@@docs-run-status ";
/** The HTTP errors a block announces (`status=422,404`): the rest fail it. */
const allowedOf = (b: Block) => new Set((b.words.find((w) => w.startsWith("status="))?.slice(7) ?? "").split(","));
const runOf = (b: Block) => b.words.find((w) => w.startsWith("run="))?.slice(4);
const marked = (b: Block) => runOf(b) !== undefined || b.words.some((w) => w === "config" || w === "norun" || w.startsWith("doctest="));

/** The key every example that has keys is started with; the pages call it TOOLNEXUS_API_KEY, OPS_KEY or KEY. */
const KEY = randomBytes(32).toString("hex");

it("marks every shell and YAML fence of README.md and docs/ as run=, config, doctest= or norun", () => {
  const unmarked = blocks.filter((b) => RUNNABLE_LANGS.has(b.lang) && !marked(b)).map((b) => b.where);
  expect(unmarked).toEqual([]);
});

describe("every config of the docs is one the config loader accepts", () => {
  for (const b of blocks.filter((x) => x.words.includes("config"))) {
    it(b.where, async () => {
      // Variables and secret files stand for the reader's own: any value of the right shape.
      const text = b.text.replaceAll(/\$\{file:[^}]+\}/g, "a-secret-read-from-a-file-0123456789");
      const env = Object.fromEntries(
        [...text.matchAll(/\$\{([A-Za-z_]\w*)/g)].map(([, name]) => [name, "value-of-the-variable-0123456789"]),
      );
      // Paths name the reader's files: a missing one is not the page's fault, anything else is.
      const issues = await normalizeConfig(parseYaml(text) ?? {}, { baseDir: os.tmpdir(), env }).then(
        () => [],
        (err: ConfigError) => err.issues.filter((i) => i.message !== "not found"),
      );
      expect(issues).toEqual([]);
    });
  }
});

const byExample = new Map<string, Block[]>();
for (const b of blocks) {
  const example = runOf(b);
  if (example !== undefined) byExample.set(example, [...(byExample.get(example) ?? []), b]);
}

/** Runs one block in bash in `cwd`, against `url`; resolves with its exit code and output. */
function run(b: Block, url: string, cwd: string): Promise<{ code: number; out: string }> {
  const host = url.replace("http://", "");
  const script = [
    "set -eo pipefail",
    // Each response's status goes to stderr: an HTTP error the page does not announce fails it.
    `curl() { command curl -w '%{stderr}${STATUS}%{http_code}\\n' "$@"; }`,
    // The CLI as a reader of the README runs it (npx toolnexus, or toolnexus once installed).
    `toolnexus() { node ${JSON.stringify(CLI)} "$@"; }`,
    'npx() { if [ "$1" = toolnexus ]; then shift; toolnexus "$@"; else command npx "$@"; fi; }',
    b.text.replaceAll("localhost:8080", host).replaceAll("127.0.0.1:8080", host),
  ].join("\n");
  const env = { ...process.env, TOOLNEXUS_API_KEY: KEY, OPS_KEY: KEY, KEY, TOOLNEXUS_URL: url };
  return new Promise((resolve) =>
    execFile("bash", ["-c", script], { cwd, env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
    ),
  );
}

for (const [example, list] of byExample) {
  describe(`the commands of the docs run against examples/${example}`, () => {
    let server: ServeProcess;
    let cwd: string;
    beforeAll(async () => {
      cwd = await mkdtemp(path.join(os.tmpdir(), "toolnexus-docs-run-"));
      // `--config examples/…` in a command resolves as from a clone's root; files it writes stay here.
      await symlink(path.join(root, "examples"), path.join(cwd, "examples"));
      // Known before the start: examples/http-openapi calls the gateway itself at TOOLNEXUS_URL.
      const port = await freePort();
      const env = { ...process.env, TOOLNEXUS_API_KEY: KEY, TOOLNEXUS_URL: `http://127.0.0.1:${port}` };
      server = await startServeProcess(path.join(root, "examples", example), env, port);
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
      if (cwd) await rm(cwd, { recursive: true, force: true });
    });
    for (const b of list) {
      it(
        b.where,
        async () => {
          const { code, out } = await run(b, server.url, cwd);
          expect(code, `${b.where} exited ${code}:\n${out.slice(-3000)}`).toBe(0);
          const statuses = [...out.matchAll(new RegExp(`${STATUS}(\\d+)`, "g"))].map(([, s]) => s ?? "");
          if (/\bcurl\b/.test(b.text)) expect(statuses.length, `${b.where} made no HTTP request`).toBeGreaterThan(0);
          const failed = statuses.filter((s) => Number(s) >= 400 && !allowedOf(b).has(s));
          expect(failed, `${b.where} got HTTP errors the page does not announce:\n${out.slice(-3000)}`).toEqual([]);
        },
        90_000,
      );
    }
  });
}
