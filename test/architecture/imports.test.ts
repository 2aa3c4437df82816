import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cycles, importGraph } from "./import-graph.js";

// The import rules of docs/architecture.md, checked on the source text (no build needed).
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { files } = importGraph(root, "src");
const SERVER = "src/server/";

/** The concern folder of a file under src/server/ (`calls`), or undefined for a top-level file. */
const concernOf = (file: string): string | undefined => {
  const rest = file.slice(SERVER.length).split("/");
  return rest.length > 1 ? rest[0] : undefined;
};

// The layers of docs/architecture.md, lowest first: a file may import its own layer or a lower one.
const LAYERS: [string, number][] = [
  ["src/core/", 0],
  ["src/version.ts", 0],
  ["src/config/", 1],
  ["src/net/", 2],
  ["src/governance/", 2],
  ["src/sources/", 3],
  ["src/create-toolkit.ts", 4],
  ["src/server/", 5],
  ["src/cli-async.ts", 6],
  ["src/cli-call.ts", 6],
  ["src/cli-config.ts", 6],
  ["src/cli-help.ts", 6],
  ["src/cli-keys.ts", 6],
  ["src/cli-output.ts", 6],
  ["src/cli-pins.ts", 6],
  ["src/cli-pins-remote.ts", 6],
  ["src/cli-serve.ts", 6],
  ["src/cli.ts", 6],
  ["src/index.ts", 6],
];
const rankOf = (file: string): number => {
  const layer = LAYERS.find(([prefix]) => file.startsWith(prefix));
  if (!layer) throw new Error(`${file} is in no layer of docs/architecture.md`);
  return layer[1];
};

/**
 * The rows of the markdown table of docs/architecture.md whose header starts with `header`:
 * each row's cells, backticks and the trailing `/` of a folder removed.
 */
const docTable = (header: string): string[][] => {
  const lines = readFileSync(path.join(root, "docs/architecture.md"), "utf8").split("\n");
  const start = lines.findIndex((l) => l.startsWith(`| ${header} |`));
  if (start < 0) throw new Error(`docs/architecture.md has no table headed "${header}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim().replaceAll("`", "").replace(/\/$/, "")),
    );
  }
  return rows;
};

/** The folders of src/server/ and what each may import, as docs/architecture.md's direction table says. */
const allowed = new Map(
  docTable("folder | imports from").map(([folder = "", deps = ""]) => [
    folder,
    new Set(deps === "—" ? [] : deps.split(",").map((d) => d.trim())),
  ]),
);

/** The directories directly under `dir` (repository-relative). */
const dirsIn = (dir: string): string[] =>
  readdirSync(path.join(root, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `${dir}/${e.name}`);

const fileEdges = (filter: (f: string) => boolean) =>
  new Map([...files].filter(([f]) => filter(f)).map(([f, { local }]) => [f, local.filter(filter)]));

describe("the import graph of src/", () => {
  it("resolves every relative import to a file that exists", () => {
    const missing = [...files].flatMap(([f, { local }]) => local.filter((t) => !files.has(t)).map((t) => `${f} -> ${t}`));
    expect(missing).toEqual([]);
  });

  it("has no cycle in src/", () => {
    expect(cycles(fileEdges(() => true))).toEqual([]);
  });

  it("has no cycle in src/server/", () => {
    expect(cycles(fileEdges((f) => f.startsWith(SERVER)))).toEqual([]);
  });

  it("has no import from a src/server/<concern>/ folder back up to a top-level src/server/*.ts file", () => {
    const upward = [...files]
      .filter(([f]) => f.startsWith(SERVER) && concernOf(f))
      .flatMap(([f, { local }]) => local.filter((t) => t.startsWith(SERVER) && !concernOf(t)).map((t) => `${f} -> ${t}`));
    expect(upward).toEqual([]);
  });

  it("has no cycle between the concern folders of src/server/ (a folder never imports one that depends on it)", () => {
    const folders = new Map<string, Set<string>>();
    for (const [f, { local }] of files) {
      const from = f.startsWith(SERVER) ? concernOf(f) : undefined;
      if (!from) continue;
      const deps = folders.get(from) ?? new Set<string>();
      for (const t of local) {
        const to = t.startsWith(SERVER) ? concernOf(t) : undefined;
        if (to && to !== from) deps.add(to);
      }
      folders.set(from, deps);
    }
    expect(cycles(new Map([...folders].map(([k, v]) => [k, [...v]])))).toEqual([]);
  });

  it("lists every folder of src/server/ in docs/architecture.md's direction table, and no other", () => {
    const onDisk = dirsIn("src/server")
      .map((d) => d.slice(SERVER.length))
      .sort();
    expect([...allowed.keys()].sort()).toEqual(onDisk);
  });

  it("has no import between two folders of src/server/ that docs/architecture.md's direction table does not list", () => {
    const outside = [...files]
      .filter(([f]) => f.startsWith(SERVER) && concernOf(f))
      .flatMap(([f, { local }]) =>
        local
          .filter((t) => t.startsWith(SERVER) && concernOf(t) && concernOf(t) !== concernOf(f))
          .filter((t) => !allowed.get(concernOf(f)!)?.has(concernOf(t)!))
          .map((t) => `${f} -> ${t}`),
      );
    expect(outside).toEqual([]);
  });

  it("lists every subfolder of src/server/<folder>/ and src/sources/mcp/ in docs/architecture.md's subfolder table, and no other", () => {
    const onDisk = [...dirsIn("src/server").flatMap(dirsIn), ...dirsIn("src/sources/mcp")].sort();
    const listed = docTable("subfolder | what it holds")
      .map(([sub = ""]) => sub)
      .sort();
    expect(listed).toEqual(onDisk);
  });

  it("has no import from a layer of src/ to a higher one", () => {
    const upward = [...files].flatMap(([f, { local }]) => local.filter((t) => rankOf(t) > rankOf(f)).map((t) => `${f} -> ${t}`));
    expect(upward).toEqual([]);
  });

  it("keeps src/core free of the server, sources, config, net and Fastify", () => {
    const outside = ["src/server/", "src/sources/", "src/config/", "src/net/"];
    const bad = [...files]
      .filter(([f]) => f.startsWith("src/core/"))
      .flatMap(([f, { local, packages }]) =>
        [
          ...local.filter((t) => outside.some((o) => t.startsWith(o))),
          ...packages.filter((p) => p === "fastify" || p.startsWith("fastify/") || p.startsWith("@fastify/")),
        ].map((t) => `${f} -> ${t}`),
      );
    expect(bad).toEqual([]);
  });
});
