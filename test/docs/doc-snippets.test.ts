import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { excerptsOf, groupScript, outputsOf, snippetsOf, type Snippet } from "../helpers/doc-snippets.js";
import { startServeProcess, type ServeProcess } from "../helpers/serve-process.js";

/**
 * The client examples of docs/clients.md and docs/streaming.md, extracted from the pages and
 * run as written (installs included) against `toolnexus serve` of the quick-start config:
 * first without keys, then behind an API key (examples/config/with-keys.yaml).
 */
const root = path.resolve(import.meta.dirname, "../..");
const PAGES = ["docs/clients.md", "docs/streaming.md"];
const snippets = PAGES.flatMap((p) => snippetsOf(readFileSync(path.join(root, p), "utf8"), p));
const groups = new Map<string, Snippet[]>();
for (const s of snippets) groups.set(s.group, [...(groups.get(s.group) ?? []), s]);
/** Each group's folder, made on the first pass and reused by the second (installs stay). */
const dirs = new Map<string, string>();

/** A fresh terminal's environment: none of npm's, vitest's or the service's variables. */
function clientEnv(key: string | undefined): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|TOOLNEXUS_|VITEST|NODE_OPTIONS$)/i.test(k)));
  return key === undefined ? env : { ...env, TOOLNEXUS_API_KEY: key };
}

async function runGroup(group: string, list: readonly Snippet[], url: string, key: string | undefined): Promise<void> {
  const first = !dirs.has(group);
  if (first) dirs.set(group, await mkdtemp(path.join(os.tmpdir(), `toolnexus-doc-${group}-`)));
  const { script, expected, blocks } = groupScript(list, { first, url });
  const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number }>((resolve) => {
    execFile("bash", ["-c", script], { cwd: dirs.get(group), env: clientEnv(key), maxBuffer: 64 * 1024 * 1024 }, (err, out, errOut) =>
      resolve({ stdout: out, stderr: errOut, code: err ? Number((err as { code?: number }).code ?? 1) : 0 }),
    );
  });
  const outputs = outputsOf(stdout);
  const failed = blocks.get(Math.max(0, ...outputs.keys())) ?? list[0]?.where;
  expect(code, `the block at ${failed} exited ${code}\n--- stdout\n${stdout.slice(-4000)}\n--- stderr\n${stderr.slice(-4000)}`).toBe(0);
  for (const [n, { text, where }] of expected) {
    expect(tidy(outputs.get(n) ?? ""), `output of ${blocks.get(n)} (expected at ${where})`).toBe(tidy(text));
  }
}

/** Trailing blanks of each line and of the whole are not part of what a page shows. */
const tidy = (s: string): string =>
  s
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n")
    .trim();

afterAll(async () => {
  await Promise.all([...dirs.values()].map((d) => rm(d, { recursive: true, force: true })));
});

it("finds the documented snippets: curl, Python, Go, TypeScript and streaming", () => {
  expect([...groups.keys()]).toEqual(["curl", "python", "go", "typescript", "streaming", "streaming-js"]);
  for (const list of groups.values())
    expect(
      list.some((s) => s.output),
      list[0]?.where,
    ).toBe(true);
});

it("shows code excerpts exactly as the files they quote hold them", () => {
  const excerpts = PAGES.flatMap((p) => excerptsOf(readFileSync(path.join(root, p), "utf8"), p));
  expect(excerpts.map((e) => e.path)).toEqual(["examples/config/plugins/examples.mjs"]);
  for (const e of excerpts) expect(readFileSync(path.join(root, e.path), "utf8"), `${e.where} quotes ${e.path}`).toContain(e.text);
});

const modes = [
  { name: "without keys", config: "examples/config", key: undefined },
  { name: "with an API key", config: "examples/config/with-keys.yaml", key: randomBytes(32).toString("hex") },
];

for (const mode of modes) {
  describe(`the documented clients run against the quick start ${mode.name}`, () => {
    let server: ServeProcess;
    beforeAll(async () => {
      const env = { ...process.env, TOOLNEXUS_API_KEY: mode.key };
      if (mode.key === undefined) delete env.TOOLNEXUS_API_KEY;
      server = await startServeProcess(path.join(root, mode.config), env);
    });
    afterAll(async () => {
      await server?.stop();
    });

    it(mode.key ? "refuses a call without the key" : "needs no key", async () => {
      expect((await fetch(`${server.url}/tools`)).status).toBe(mode.key ? 401 : 200);
    });

    for (const [group, list] of groups) {
      it(`${group} (${list[0]?.where})`, () => runGroup(group, list, server.url, mode.key), 300_000);
    }
  });
}
