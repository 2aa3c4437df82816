import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** The imports of every TypeScript file under a directory: file → the files and packages it imports. */
export interface ImportGraph {
  /** Repository-relative paths (`src/server/build-server.ts`) → what each imports. */
  files: Map<string, { local: string[]; packages: string[] }>;
}

/**
 * Reads every `.ts` file under `dir` and collects its static imports, `export … from`s,
 * `import "x"` and dynamic `import("x")` (type-only imports count too: they still tie two
 * files together). Relative specifiers are resolved to repository-relative `.ts` paths.
 */
export function importGraph(root: string, dir: string): ImportGraph {
  const files = new Map<string, { local: string[]; packages: string[] }>();
  for (const file of tsFiles(path.join(root, dir))) {
    const rel = path.relative(root, file).split(path.sep).join("/");
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const local: string[] = [];
    const packages: string[] = [];
    for (const { fileName } of info.importedFiles) {
      if (fileName.startsWith("."))
        local.push(path.posix.normalize(path.posix.join(path.posix.dirname(rel), fileName)).replace(/\.js$/, ".ts"));
      else packages.push(fileName);
    }
    files.set(rel, { local, packages });
  }
  return { files };
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(full);
    return e.name.endsWith(".ts") ? [full] : [];
  });
}

/** The cycles of a directed graph (its strongly connected components of more than one node, or a self-loop). */
export function cycles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, iterative enough for a few hundred files.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (edges.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of edges.keys()) if (!idx.has(v)) visit(v);
  return out;
}
