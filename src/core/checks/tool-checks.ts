// Whether a tool can be served at all (its name, its inputSchema) and whether a call's arguments
// fit it: the validation half of the toolkit, kept apart from toolkit.ts, which holds the sources
// and the catalog they assemble.
import { ToolnexusError } from "../errors.js";
import type { Source } from "../source.js";
import type { Logger, Tool } from "../types.js";
import { TOOL_NAME } from "./tool-name.js";
import { ArgsValidator } from "./validate-args.js";

/** The checks between tools and a catalog; it keeps the compiled schemas and the refusals already warned about. */
export class ToolChecks {
  private readonly validator = new ArgsValidator();
  /** Tools already refused (and warned about), by source and name, so a re-list warns once. */
  private readonly refused = new Set<string>();

  constructor(private readonly logger: Logger) {}

  /**
   * The tools that can be served: a name the router and every provider accept and
   * an inputSchema that compiles. The rest are left out with one warning naming them and their source.
   */
  servable(tools: readonly Tool[], source?: Source): readonly Tool[] {
    const ok = (t: Tool) => {
      const reason = !TOOL_NAME.test(t.name) ? `its name does not match ${TOOL_NAME.source}` : this.validator.compileError(t.inputSchema);
      if (reason === undefined) return true;
      const key = `${source?.kind ?? t.source}/${source?.name ?? ""}/${t.name}`;
      if (!this.refused.has(key)) {
        this.refused.add(key);
        this.logger.warn(
          { tool: t.name, source: source?.kind ?? t.source, name: source?.name ?? "tools", reason },
          "tool refused: it cannot be served, so it is not listed",
        );
      }
      return false;
    };
    return tools.filter(ok);
  }

  /** Throws INVALID_ARGUMENTS with JSON-pointer errors when `args` fail the tool's inputSchema. */
  validate(tool: Tool, args: unknown): void {
    const errors = this.validator.validate(tool.inputSchema, args);
    if (errors.length > 0) {
      throw new ToolnexusError("INVALID_ARGUMENTS", `Arguments do not match the inputSchema of "${tool.name}"`, { errors });
    }
  }
}
