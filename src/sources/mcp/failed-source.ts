import type { Source, SourceStatus } from "../../core/source.js";
import type { Tool } from "../../core/types.js";

/** A configured MCP entry that cannot be used at all (bad mcp.json, duplicate name): `failed`, no tools. */
export class FailedMcpSource implements Source {
  readonly kind = "mcp" as const;
  constructor(
    readonly name: string,
    private readonly error: string,
  ) {}
  async build(): Promise<void> {}
  tools(): readonly Tool[] {
    return [];
  }
  status(): SourceStatus {
    return { source: this.kind, name: this.name, state: "failed", tools: 0, error: this.error };
  }
  async close(): Promise<void> {}
}
