import type { SkillCatalog, SkillInfo, SkippedSkill, Source, SourceContext, SourceStatus } from "../../core/source.js";
import type { Tool } from "../../core/types.js";
import { discoverSkills } from "./discover.js";
import { renderPrompt, type Skill } from "./format.js";
import { skillTool } from "./skill-tool.js";
import { byCodeUnit } from "./walk.js";

/**
 * Every SKILL.md below the configured directories, served as the one `skill` tool and as the
 * catalog behind `GET /skills` and `skillsPrompt()`. One instance covers all directories, so
 * "first name wins" holds across them in the order they are configured.
 */
export class SkillSource implements Source, SkillCatalog {
  readonly kind = "skill" as const;
  private loaded: Skill[] = [];
  // Computed once per build: GET /skills and /skills/prompt may be polled by every client.
  private listing: SkillInfo[] = [];
  private catalogPrompt = renderPrompt([]);
  private skippedList: SkippedSkill[] = [];
  private list: Tool[] = [];
  private state: SourceStatus["state"] = "connecting";
  private error?: string;

  constructor(
    readonly name: string,
    private readonly dirs: readonly string[],
  ) {}

  async build(ctx: SourceContext): Promise<void> {
    try {
      const found = await discoverSkills(this.dirs, ctx.logger);
      this.loaded = found.skills;
      this.skippedList = found.skipped;
      this.listing = [...found.skills]
        .sort((a, b) => byCodeUnit(a.name, b.name))
        .map(({ name, description, location }) => ({ name, description, location }));
      this.catalogPrompt = renderPrompt(found.skills);
      if (found.failedRoots.length > 0) this.error = `cannot read skills directory: ${found.failedRoots.join(", ")}`;
      // Failed only when no directory could be read; one unreadable directory must not hide the others.
      this.state = found.failedRoots.length === this.dirs.length && this.dirs.length > 0 ? "failed" : "connected";
      this.list = this.state === "failed" ? [] : [skillTool(() => this.loaded)];
      ctx.logger.info({ skills: this.loaded.length, skipped: this.skippedList.length }, "skills loaded");
    } catch (err) {
      this.state = "failed";
      this.error = (err as Error).message;
      ctx.logger.error({ err: this.error }, "skills failed to load");
    }
  }

  tools(): readonly Tool[] {
    return this.list;
  }

  status(): SourceStatus {
    return { source: this.kind, name: this.name, state: this.state, tools: this.list.length, ...(this.error ? { error: this.error } : {}) };
  }

  /** Loaded skills sorted by name, as `GET /skills` lists them. */
  skills(): readonly SkillInfo[] {
    return this.listing;
  }

  /** Skipped SKILL.md files in discovery order, each with its reason. */
  skipped(): readonly SkippedSkill[] {
    return this.skippedList;
  }

  /** The system-prompt catalog. */
  prompt(): string {
    return this.catalogPrompt;
  }

  async close(): Promise<void> {
    this.list = [];
  }
}
