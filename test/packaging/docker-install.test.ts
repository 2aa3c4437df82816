import { execFile, spawn } from "node:child_process";
import { cp, readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/temp-dir.js";
import { freePort } from "../helpers/free-port.js";

// There is no Docker engine on the build machines: this replays the image's final stage
// (copy the package, production-only install, serve the example config) so a devDependency
// needed at run time, or a file the image forgets to copy, fails here.

const root = path.resolve(import.meta.dirname, "../..");
/** What the test copies into its stand-in for the image's /app: the final stage must copy exactly these. */
const COPIED = ["dist", "examples", "openapi", "package-lock.json", "package.json"];

interface Stage {
  from: string;
  workdir: string;
  lines: string[];
}

/** Dockerfile instructions grouped by stage, continuation lines joined, comments dropped. */
function stages(text: string): Stage[] {
  const lines = text
    .replace(/\\\r?\n/g, " ")
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const out: Stage[] = [];
  for (const line of lines) {
    const [op = "", ...args] = line.split(/\s+/);
    if (op.toUpperCase() === "FROM") out.push({ from: args.join(" "), workdir: "/", lines: [] });
    const stage = out.at(-1);
    if (!stage) continue;
    if (op.toUpperCase() === "WORKDIR") stage.workdir = path.posix.resolve(stage.workdir, args[0] ?? "");
    stage.lines.push(line);
  }
  return out;
}

/** The context-relative paths a stage's COPY lines bring in (`--from=<stage>` paths made relative to that stage's WORKDIR). */
function copiedPaths(all: Stage[], stage: Stage): string[] {
  const paths: string[] = [];
  for (const line of stage.lines.filter((l) => /^COPY\s/i.test(l))) {
    const words = line.split(/\s+/).slice(1);
    expect(words[0]?.startsWith("["), `JSON-form COPY is not parsed here: ${line}`).toBe(false);
    const from = words.find((w) => w.startsWith("--from="))?.slice("--from=".length);
    const srcs = words.filter((w) => !w.startsWith("--")).slice(0, -1);
    const fromDir = from === undefined ? undefined : all.find((s) => s.from.split(/\s+/).at(-1) === from)?.workdir;
    if (from !== undefined) expect(fromDir, `unknown stage ${from}`).toBeDefined();
    for (const src of srcs) paths.push(fromDir ? path.posix.relative(fromDir, src) : path.posix.normalize(src));
  }
  return paths.sort();
}

describe("Docker image (final stage replayed without Docker)", async () => {
  const dockerText = await readFile(path.join(root, "Dockerfile"), "utf8");
  const dockerfile = stages(dockerText);
  const final = dockerfile.at(-1) as Stage;
  const npmCi = final.lines.find((l) => /^RUN\s.*\bnpm ci\b/.test(l)) ?? "";
  const npmCiArgs = (/\bnpm ci\b([^&;|]*)/.exec(npmCi)?.[1] ?? "").trim().split(/\s+/).filter(Boolean);
  /** An exec-form (JSON array) instruction of the final stage, e.g. ENTRYPOINT, CMD, HEALTHCHECK ... CMD. */
  const execForm = (re: RegExp): string[] => JSON.parse(re.exec(final.lines.join("\n"))?.[1] ?? "null") as string[];
  const entrypoint = execForm(/^ENTRYPOINT\s+(\[.*\])$/m);
  const cmd = execForm(/^CMD\s+(\[.*\])$/m);
  const healthcheck = execForm(/^HEALTHCHECK\s.*\bCMD\s+(\[.*\])$/m);

  it("the final stage copies exactly what this test copies, none of it excluded by .dockerignore", async () => {
    expect(dockerfile.length).toBeGreaterThanOrEqual(2);
    expect(copiedPaths(dockerfile, final)).toEqual(COPIED);
    const ignored = (await readFile(path.join(root, ".dockerignore"), "utf8"))
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith("#"));
    const contextPaths = [...copiedPaths(dockerfile, final), ...dockerfile.slice(0, -1).flatMap((s) => copiedPaths(dockerfile, s))].filter(
      (p) => !p.startsWith("..") && !path.posix.isAbsolute(p) && p !== "dist",
    );
    for (const p of contextPaths) expect(ignored, p).not.toContain(p);
    expect(ignored).toContain("node_modules");
  });

  it("the final stage installs production dependencies only, runs as non-root under an init, and is configured for containers", () => {
    expect(npmCiArgs).toContain("--omit=dev");
    const text = final.lines.join("\n");
    expect(text).toMatch(/^USER\s+(?!0\b|root\b)\S+/m);
    expect(entrypoint.slice(0, 3)).toEqual(["/usr/bin/tini", "--", "node"]);
    expect(cmd).toEqual(["serve"]);
    expect(healthcheck[0]).toBe("node");
    expect(text).toMatch(/apt-get install .*\btini\b/);
    expect(text).toMatch(/TOOLNEXUS_CONFIG=\/etc\/toolnexus\b/);
    expect(text).toMatch(/TOOLNEXUS_HOST=0\.0\.0\.0\b/);
    expect(text).toMatch(/^EXPOSE\s+8080$/m);
    expect(text).toMatch(/^HEALTHCHECK\s.*\/healthz/m);
    // A read-only root needs every writer pointed at /tmp.
    expect(text).toMatch(/HOME=\/tmp\b/);
    expect(text).toMatch(/NPM_CONFIG_CACHE=\/tmp\//);
  });

  it("the base image's Node satisfies package.json engines", async () => {
    const { engines } = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as { engines: { node: string } };
    const image = /^ARG NODE_IMAGE=node:(\d+)-\S*slim$/m.exec(dockerText);
    const min = /^>=(\d+)/.exec(engines.node);
    expect(image?.[1] && min?.[1]).toBeTruthy();
    expect(Number(image?.[1])).toBeGreaterThanOrEqual(Number(min?.[1]));
    expect(Number(image?.[1]) % 2, "an even (LTS) Node major").toBe(0);
  });

  it("npm ci --omit=dev of the copied package serves the example config, executes a tool, and drains on SIGTERM", async () => {
    expect(existsSync(path.join(root, "dist/bundle/cli.js")), "dist/ is built by the vitest globalSetup").toBe(true);
    const app = await tempDir();
    for (const p of COPIED) await cp(path.join(root, p), path.join(app, p), { recursive: true });

    // The Dockerfile's own flags, so the two installs cannot differ.
    const env: Record<string, string | undefined> = { ...process.env, NODE_ENV: "production" };
    delete env.NODE_PATH;
    delete env.TOOLNEXUS_CONFIG;
    await promisify(execFile)("npm", ["ci", ...npmCiArgs], { cwd: app, env, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 });
    expect(existsSync(path.join(app, "node_modules/fastify/package.json"))).toBe(true);
    expect(existsSync(path.join(app, "node_modules/typescript")), "devDependencies are not installed").toBe(false);
    expect(existsSync(path.join(app, "node_modules/vitest"))).toBe(false);

    const port = await freePort();
    // The image's own command line (ENTRYPOINT after tini, then CMD), with /app/ being the temp dir.
    const [, ...nodeArgs] = entrypoint.slice(2).map((a) => a.replace(/^\/app\//, `${app}/`));
    const child = spawn(
      process.execPath,
      [...nodeArgs, ...cmd, "--config", "examples/config", "--host", "127.0.0.1", "--port", String(port)],
      { cwd: app, env, stdio: ["ignore", "pipe", "pipe"] },
    );
    const health = () =>
      promisify(execFile)(process.execPath, healthcheck.slice(1), { env: { ...env, TOOLNEXUS_PORT: String(port) }, timeout: 10_000 }).then(
        () => 0,
        (e: { code?: number }) => e.code ?? -1,
      );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.resume();
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    try {
      const url = `http://127.0.0.1:${port}`;
      let ready = 0;
      for (let i = 0; i < 200 && ready !== 200 && child.exitCode === null; i++) {
        ready = await fetch(`${url}/readyz`).then(
          (r) => r.status,
          () => 0,
        );
        if (ready !== 200) await new Promise((r) => setTimeout(r, 50));
      }
      expect(ready, stderr).toBe(200);
      expect(await health(), "the HEALTHCHECK command passes against a live server").toBe(0);
      const res = await fetch(`${url}/tools/echo/execute`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ arguments: { text: "hi" } }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ output: "hi", isError: false });
      child.kill("SIGTERM");
      expect(await exited, stderr).toBe(0);
      expect(await health(), "and fails once it is gone").toBe(1);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 300_000);
});
