import type { Logger, Tool, ToolSource } from "./types.js";

/** Lifecycle state of one configured source instance, as shown by `GET /status`. */
export type SourceState = "connected" | "connecting" | "reconnecting" | "failed" | "disabled";

/** The status of one source instance. `error` is a message without secrets. */
export interface SourceStatus {
  source: ToolSource;
  name: string;
  state: SourceState;
  tools: number;
  /** MCP servers: the protocol revision the session negotiated. */
  protocolVersion?: string;
  /** Built-ins: the protection bash commands run under (bubblewrap, runAs, none). */
  sandbox?: string;
  /** MCP servers: why that revision (a pin, what the server offers, whether it keeps sessions). */
  protocolReason?: string;
  error?: string;
}

/** What the toolkit hands a source when building it. */
export interface SourceContext {
  logger: Logger;
  /** Call when the source's tool list changed after build (e.g. MCP tools/list_changed). */
  onToolsChanged(): void;
}

/**
 * The one interface every tool source implements: an MCP server, a skills tree, a plugin
 * module... `build` must not throw for an ordinary failure: it records `failed` in status
 * so one broken source never stops the others (a throw is caught and recorded the same way).
 */
export interface Source {
  readonly kind: ToolSource;
  /** Instance name, unique within its kind (server id, plugin path, ...). */
  readonly name: string;
  /**
   * Identity of the config this instance was made from. On reload, a running source with the
   * same kind, name and fingerprint is kept instead of rebuilt (no MCP server restart).
   */
  readonly fingerprint?: string;
  build(ctx: SourceContext): Promise<void>;
  tools(): readonly Tool[];
  status(): SourceStatus;
  close(): Promise<void>;
}

/** A skill as listed by `GET /skills`. */
export interface SkillInfo {
  name: string;
  description: string;
  location: string;
}

/** A SKILL.md that was not loaded, and why. */
export interface SkippedSkill {
  reason: "missing-name" | "malformed-frontmatter" | "duplicate-name" | "unreadable";
  location: string;
  error?: string;
}

/** Extra surface of a skill source: the catalog behind `GET /skills` and `skillsPrompt()`. */
export interface SkillCatalog {
  skills(): readonly SkillInfo[];
  skipped(): readonly SkippedSkill[];
  prompt(): string;
}

/** True for a source that also serves a skill catalog. */
export function isSkillCatalog(s: unknown): s is SkillCatalog {
  return (
    typeof s === "object" &&
    s !== null &&
    typeof (s as SkillCatalog).skills === "function" &&
    typeof (s as SkillCatalog).prompt === "function"
  );
}

/** A source that is configured but not available in this build; status shows it `disabled`. */
export class DisabledSource implements Source {
  constructor(
    readonly kind: ToolSource,
    readonly name: string,
    private readonly reason: string,
  ) {}
  async build(): Promise<void> {}
  tools(): readonly Tool[] {
    return [];
  }
  status(): SourceStatus {
    return { source: this.kind, name: this.name, state: "disabled", tools: 0, error: this.reason };
  }
  async close(): Promise<void> {}
}

/**
 * Base of a source whose tools are made once in `build()`: it holds the list, the state and
 * the error, and answers `tools()` and `status()`. A subclass fills `loaded` and calls
 * `connected()` or `failed()`.
 */
export abstract class ToolListSource implements Source {
  abstract readonly kind: ToolSource;
  abstract readonly name: string;
  protected loaded: Tool[] = [];
  protected state: SourceState = "connecting";
  protected error?: string;

  abstract build(ctx: SourceContext): Promise<void>;

  tools(): readonly Tool[] {
    return this.loaded;
  }

  status(): SourceStatus {
    return {
      source: this.kind,
      name: this.name,
      state: this.state,
      tools: this.loaded.length,
      ...(this.error ? { error: this.error } : {}),
    };
  }

  /** Records a failure. `message` is shown by /status: it must hold no secret. */
  protected failed(message: string): void {
    this.state = "failed";
    this.error = message;
  }

  async close(): Promise<void> {
    this.loaded = [];
  }
}
