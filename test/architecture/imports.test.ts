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
  ["src/cli-pins.ts", 6],
  ["src/cli-pins-remote.ts", 6],
  ["src/cli.ts", 6],
  ["src/index.ts", 6],
];
const rankOf = (file: string): number => {
  const layer = LAYERS.find(([prefix]) => file.startsWith(prefix));
  if (!layer) throw new Error(`${file} is in no layer of docs/architecture.md`);
  return layer[1];
};

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
