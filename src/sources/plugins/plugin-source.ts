import { statSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { defineTool, isTool, isToolDefinition } from "../../core/define-tool.js";
import { ToolListSource, type SourceContext } from "../../core/source.js";
import type { Logger, Tool } from "../../core/types.js";

/** What a plugin's async factory receives. */
interface PluginContext {
  logger: Logger;
  /** Absolute path of the plugin module. */
  file: string;
}

/**
 * One JavaScript module from `plugins:`. Its default export may be a Tool, a defineTool
 * definition, an array of them, or a (possibly async) factory returning any of those.
 * A module that fails to import or exports nothing usable is `failed`; the rest still load.
 */
export class PluginSource extends ToolListSource {
  readonly kind = "native" as const;

  /** The file and its modification time: a reload keeps an unchanged module and re-imports an edited one. */
  readonly fingerprint: string;

  constructor(
    readonly name: string,
    private readonly file: string,
  ) {
    super();
    this.fingerprint = `${file}@${statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0}`;
  }

  async build(ctx: SourceContext): Promise<void> {
    try {
      // The query makes an edited file a new module; Node caches imports by URL forever.
      const url = `${pathToFileURL(this.file).href}?v=${encodeURIComponent(this.fingerprint.split("@").pop() ?? "")}`;
      const mod = (await import(url)) as { default?: unknown };
      this.loaded = await toTools(mod.default, { logger: ctx.logger, file: this.file });
      this.state = "connected";
      ctx.logger.info({ tools: this.loaded.length }, "plugin loaded");
    } catch (err) {
      this.failed((err as Error).message);
      ctx.logger.error({ err: this.error }, "plugin failed to load");
    }
  }
}

async function toTools(exported: unknown, ctx: PluginContext): Promise<Tool[]> {
  const value = typeof exported === "function" && !isTool(exported) ? await (exported as (c: PluginContext) => unknown)(ctx) : exported;
  const items = Array.isArray(value) ? value : [value];
  if (value === undefined || items.length === 0) throw new Error("default export holds no tools");
  return items.map((item, i) => {
    if (isTool(item)) return item;
    if (isToolDefinition(item)) return defineTool(item);
    throw new Error(`default export item ${i} is neither a Tool nor a tool definition`);
  });
}
