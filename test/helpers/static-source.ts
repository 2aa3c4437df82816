import type { Source, SourceStatus } from "../../src/core/source.js";
import type { Tool, ToolSource } from "../../src/core/types.js";

/** A Source holding a fixed tool list; `fail` makes build record a failure (or throw). */
export class StaticSource implements Source {
  closed = false;
  builds = 0;
  fingerprint?: string;
  private state: SourceStatus["state"] = "connecting";
  private error?: string;
  notify?: () => void;

  constructor(
    readonly kind: ToolSource,
    readonly name: string,
    public list: Tool[],
    private readonly fail?: "record" | "throw",
  ) {}

  async build(ctx: { onToolsChanged(): void }): Promise<void> {
    this.builds++;
    this.notify = ctx.onToolsChanged;
    if (this.fail === "throw") throw new Error("exploded");
    if (this.fail === "record") {
      this.state = "failed";
      this.error = "could not start";
      this.list = [];
      return;
    }
    this.state = "connected";
  }
  tools(): readonly Tool[] {
    return this.list;
  }
  status(): SourceStatus {
    return { source: this.kind, name: this.name, state: this.state, tools: this.list.length, ...(this.error ? { error: this.error } : {}) };
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

/** A tool of the given source whose output is its own `name@source`. */
export function tool(name: string, source: ToolSource, inputSchema: Record<string, unknown> = { type: "object" }): Tool {
  return {
    name,
    description: `${name} from ${source}`,
    inputSchema,
    source,
    execute: async () => ({ output: `${name}@${source}`, isError: false }),
  };
}
