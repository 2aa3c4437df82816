import { toAnthropic, toGemini, toOpenAI } from "./adapters.js";
import { assembleTools, unmatchedDisabled, type ToolGroup } from "./assemble.js";
import { allOrQuiet } from "./all-or-quiet.js";
import { ToolnexusError } from "./errors.js";
import { isSkillCatalog, type SkillCatalog, type SkillInfo, type SkippedSkill, type Source, type SourceStatus } from "./source.js";
import { silentLogger, type Logger, type Tool, type ToolContext, type ToolResult } from "./types.js";
import { ToolChecks } from "./checks/tool-checks.js";
import { buildSurface, type Surface } from "./surface/catalog.js";
import { isSurfaceProvider } from "./surface/provider.js";

/** The prompt text when no described skill exists. */
export const NO_SKILLS_PROMPT = "No skills are currently available.";

/** What a Toolkit is assembled from. Sources are built by {@link Toolkit.create}. */
export interface ToolkitOptions {
  sources?: Source[];
  /** Your own tools (defineTool, hand-built `custom` tools). */
  tools?: Tool[];
  disableTools?: string[];
  logger?: Logger;
  /**
   * A running toolkit being replaced (config reload): its sources with the same kind, name and
   * fingerprint are taken over instead of built again, and its close() leaves them running.
   */
  reuse?: Toolkit;
  /**
   * How long {@link Toolkit.create} waits with no source finishing its build before it
   * resolves without the ones still building (default {@link DEFAULT_STARTUP_QUIET_MS}): a
   * server that accepts the connection and never answers must not hold the catalog back for
   * its whole timeout. Those sources go on in the background and join the catalog (a change
   * event) when their build ends.
   */
  startupQuietMs?: number;
}

/** The default of {@link ToolkitOptions.startupQuietMs}: longer than a slow stdio server takes to spawn. */
const DEFAULT_STARTUP_QUIET_MS = 5_000;

// Versions are unique across toolkits so caches keyed by version never confuse an old catalog with a new one.
let nextVersion = 1;
// Which toolkit a source reports tool changes to; moves when a reload takes the source over.
const ownerOf = new WeakMap<Source, Toolkit>();

/**
 * One catalog over many sources. Builds them in parallel, isolates their failures,
 * assembles `tools()` deterministically and routes `execute` to the right tool.
 */
export class Toolkit {
  private catalog: Tool[] = [];
  private byName = new Map<string, Tool>();
  /** Which tools can be served, and whether a call's arguments fit its tool. */
  private readonly checks: ToolChecks;
  /** Name collisions already warned about, so a re-list warns once. */
  private readonly collisions = new Set<string>();
  private readonly listeners = new Set<() => void>();
  /** Sources whose build threw: shown failed, their tools left out. */
  private readonly crashed = new Map<Source, string>();
  private closed = false;
  private readonly handedOver = new Set<Source>();
  /** Sources whose build is under way. */
  private readonly pending = new Set<Source>();
  /** True once create() assembled the catalog: a build ending after that reassembles it. */
  private assembled = false;
  /** Changes whenever the catalog changes, unique across toolkits; used for ETags and caches. */
  version = 0;
  /** The merged resources and prompts, formed once per version; their collisions warned about once. */
  private merged?: { version: number; surface: Surface };
  private readonly surfaceWarned = new Set<string>();

  private constructor(
    private readonly sources: Source[],
    private readonly opts: ToolkitOptions,
    private readonly logger: Logger,
  ) {
    this.checks = new ToolChecks(logger);
  }

  /** Builds every source (failures are recorded in status, never thrown) and assembles the catalog. */
  static async create(opts: ToolkitOptions = {}): Promise<Toolkit> {
    const logger = opts.logger ?? silentLogger;
    const kept = new Set<Source>();
    const sources = (opts.sources ?? []).map((s) => {
      const old = opts.reuse?.takeOver(s);
      if (old) kept.add(old);
      return old ?? s;
    });
    const tk = new Toolkit(sources, opts, logger);
    for (const s of sources) ownerOf.set(s, tk);
    const builds = sources.filter((s) => !kept.has(s)).map((s) => tk.buildSource(s));
    const late = await allOrQuiet(builds, opts.startupQuietMs ?? DEFAULT_STARTUP_QUIET_MS);
    tk.assembled = true;
    tk.reassemble();
    if (late > 0) logger.warn({ sources: tk.building() }, "sources still starting: serving without them; they join when they are up");
    const unmatched = unmatchedDisabled(tk.groups(), opts.disableTools ?? []);
    if (unmatched.length)
      logger.warn(
        { disableTools: unmatched },
        "disableTools names no such tool (a typo, or a tool of a source that failed to load or is still starting)",
      );
    return tk;
  }

  /** The sources whose build has not ended (they were left to finish in the background). */
  private building(): string[] {
    return this.sources.filter((s) => this.pending.has(s)).map((s) => `${s.kind}/${s.name}`);
  }

  /** Hands a running source matching `fresh` to a new toolkit (see {@link ToolkitOptions.reuse}). */
  private takeOver(fresh: Source): Source | undefined {
    if (fresh.fingerprint === undefined || this.closed) return undefined;
    const old = this.sources.find(
      (s) =>
        s.kind === fresh.kind &&
        s.name === fresh.name &&
        s.fingerprint === fresh.fingerprint &&
        !this.handedOver.has(s) &&
        !this.crashed.has(s) &&
        s.status().state !== "failed",
    );
    if (old) this.handedOver.add(old);
    return old;
  }

  private async buildSource(s: Source): Promise<void> {
    const log = logger(this.logger, { source: s.kind, name: s.name });
    this.pending.add(s);
    try {
      await s.build({ logger: log, onToolsChanged: () => ownerOf.get(s)?.reassemble() });
    } catch (err) {
      // A source should record its own failure; a throw is contained here all the same.
      this.crashed.set(s, (err as Error).message);
    }
    this.pending.delete(s);
    const st = this.statusOf(s);
    if (st.state === "failed") log.warn({ error: st.error }, "source failed; the others still load");
    // A build that ended after the catalog was first assembled: its tools join now (whoever owns it since).
    if (this.assembled) ownerOf.get(s)?.reassemble();
  }

  /** Each loaded source's servable tools, then the host's own. */
  private groups(): ToolGroup[] {
    return [
      ...this.sources
        .filter((s) => !this.crashed.has(s))
        .map((s) => ({ label: `${s.kind}/${s.name}`, tools: this.checks.servable(s.tools(), s) })),
      { label: "tools", tools: this.checks.servable(this.opts.tools ?? []) },
    ];
  }

  private reassemble(): void {
    // While create() waits for the builds, each source that lists its tools would reassemble
    // the whole catalog: quadratic in the number of servers. create() assembles once at the end.
    if (this.closed || !this.assembled) return;
    this.catalog = assembleTools(this.groups(), this.opts.disableTools ?? [], this.logger, this.collisions);
    this.byName = new Map(this.catalog.map((t) => [t.name, t]));
    this.version = nextVersion++;
    for (const fn of this.listeners) fn();
  }

  /** Calls `fn` after every catalog change. Returns an unsubscribe function. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Every exposed tool, in assembly order. */
  tools(): readonly Tool[] {
    return this.catalog;
  }

  /** The tool of that name, if exposed. */
  get(name: string): Tool | undefined {
    return this.byName.get(name);
  }

  /**
   * Runs a tool: TOOL_NOT_FOUND when absent, INVALID_ARGUMENTS when `args` fail its inputSchema.
   * What the tool itself throws propagates unchanged.
   */
  async execute(name: string, args: Record<string, unknown> = {}, ctx: ToolContext = {}): Promise<ToolResult> {
    const tool = this.get(name);
    if (!tool) throw new ToolnexusError("TOOL_NOT_FOUND", `No tool named "${name}"`);
    this.validate(tool, args);
    return tool.execute(args, ctx);
  }

  /** Throws INVALID_ARGUMENTS with JSON-pointer errors when `args` fail the tool's inputSchema. */
  validate(tool: Tool, args: unknown): void {
    this.checks.validate(tool, args);
  }

  /** Per-source status, without secrets. */
  status(): SourceStatus[] {
    return this.sources.map((s) => this.statusOf(s));
  }

  private statusOf(s: Source): SourceStatus {
    const crash = this.crashed.get(s);
    return crash === undefined ? s.status() : { source: s.kind, name: s.name, state: "failed", tools: 0, error: crash };
  }

  /** The resources, resource templates and prompts of the sources that serve them, merged and named for callers. */
  surface(): Surface {
    if (this.merged?.version !== this.version) {
      const providers = this.sources.filter((s) => !this.crashed.has(s) && isSurfaceProvider(s));
      this.merged = { version: this.version, surface: buildSurface(providers as never, this.logger, this.surfaceWarned) };
    }
    return this.merged.surface;
  }

  /** Every loaded skill across skill sources. */
  skills(): SkillInfo[] {
    return this.catalogs().flatMap((c) => [...c.skills()]);
  }

  /** SKILL.md files that were not loaded, with their reasons. */
  skippedSkills(): SkippedSkill[] {
    return this.catalogs().flatMap((c) => [...c.skipped()]);
  }

  /** The system-prompt catalog of skills. */
  skillsPrompt(): string {
    const first = this.catalogs()[0];
    return first ? first.prompt() : NO_SKILLS_PROMPT;
  }

  private catalogs(): SkillCatalog[] {
    return this.sources.filter(isSkillCatalog) as unknown as SkillCatalog[];
  }

  /** The catalog as OpenAI tools. */
  toOpenAI() {
    return toOpenAI(this.catalog);
  }
  /** The catalog as Anthropic tools. */
  toAnthropic() {
    return toAnthropic(this.catalog);
  }
  /** The catalog as Gemini tools. */
  toGemini() {
    return toGemini(this.catalog);
  }

  /** Closes every source it still owns (MCP clients, child processes). Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    const owned = this.sources.filter((s) => !this.handedOver.has(s));
    const results = await Promise.allSettled(owned.map((s) => s.close()));
    for (const [i, r] of results.entries()) {
      if (r.status === "rejected") this.logger.warn({ source: owned[i]?.name, err: String(r.reason) }, "source failed to close");
    }
  }
}

function logger(parent: Logger, bindings: Record<string, unknown>): Logger {
  return parent.child ? parent.child(bindings) : parent;
}
