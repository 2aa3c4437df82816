import { mkdtemp, readdir, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { BuiltinSource } from "../../../src/sources/builtins/builtin-source.js";
import { DEFAULT_LIMITS, type BuiltinsOptions } from "../../../src/sources/builtins/options.js";
import { silentLogger, type ToolContext, type ToolResult } from "../../../src/core/types.js";

/** A built BuiltinSource over a fresh temporary workspace, with an "outside" dir beside it. */
export interface Builtins {
  src: BuiltinSource;
  /** Real path of the workspace. */
  ws: string;
  /** A directory beside the workspace, for escape attempts. */
  outside: string;
  run(name: string, args: Record<string, unknown>, ctx?: ToolContext): Promise<ToolResult>;
  close(): Promise<void>;
}

/** Builds the builtin source as the config would, with overrides. */
export async function makeBuiltins(opts: Partial<BuiltinsOptions> = {}): Promise<Builtins> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "tn-builtins-")));
  const src = new BuiltinSource({ workspace: path.join(base, "ws"), env: [], limits: DEFAULT_LIMITS, egress: {}, ...opts });
  await src.build({ logger: silentLogger, onToolsChanged() {} });
  const outside = path.join(base, "outside");
  await import("node:fs/promises").then((fs) => fs.mkdir(outside));
  return {
    src,
    ws: path.join(base, "ws"),
    outside,
    run(name, args, ctx) {
      const tool = src.tools().find((t) => t.name === name);
      if (!tool) throw new Error(`no builtin ${name}`);
      return tool.execute(args, ctx);
    },
    async close() {
      await src.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** Every file below `dir` with its content: a snapshot to compare before/after. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const p = path.join(e.parentPath, e.name);
    out[path.relative(dir, p)] = await readFile(p, "utf8");
  }
  return out;
}
