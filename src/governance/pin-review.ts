import { diffDefinitions, type DefinitionChange } from "./pin-diff.js";
import { definitionDigest, definitionOf, type Definition, type Pin } from "./tool-definition.js";

/** How definitions are enforced: `pinning.mode` and `pinning.newTools`. */
export interface PinPolicy {
  mode: "off" | "warn" | "block";
  newTools: "allow" | "block";
}

/** A tool whose definition is not the pinned one (or that was never pinned and new tools need approval). */
export interface PendingChange {
  /** The pin key: a tool's name, `prompt:<name>` or `resourceTemplate:<uriTemplate>`. */
  tool: string;
  /** What is pinned, when not a tool. */
  subject?: "prompt" | "resourceTemplate";
  kind: "changed" | "new";
  /** The pinned digest (changed tools). */
  pinned?: string;
  /** The digest served now. */
  current: string;
  /** What changed, readable (changed tools). */
  changes: DefinitionChange[];
  /** True when the tool is withheld from catalogs and calls until approved. */
  withheld: boolean;
}

/** The outcome of comparing a catalog with the pins. */
export interface Review {
  /** Tools seen for the first time and allowed: to be pinned as they are. */
  record: { tool: string; pin: Pin }[];
  /** Tools that differ from their pin, or new ones awaiting approval, by name. */
  pending: Map<string, PendingChange>;
}

/** One definition under review: its pin key and what it says now. */
export interface Reviewed {
  key: string;
  def: Definition;
  subject?: "prompt" | "resourceTemplate";
}

/**
 * Compares every tool of a catalog with its pin (and `more`: the prompts and resource templates
 * of its MCP servers, under their pin keys). A definition seen for the first time is recorded
 * (or, with `newTools: block`, held for approval); one whose digest differs is pending, and
 * withheld in `block` mode. One that came back to its pin is simply not pending.
 */
export function reviewCatalog(
  tools: readonly { name: string; description: string; inputSchema: Record<string, unknown> }[],
  pins: ReadonlyMap<string, Pin>,
  policy: PinPolicy,
  now = new Date(),
  more: readonly Reviewed[] = [],
): Review {
  const review: Review = { record: [], pending: new Map() };
  if (policy.mode === "off") return review;
  const all: Reviewed[] = [...tools.map((t) => ({ key: t.name, def: definitionOf(t) })), ...more];
  for (const { key, def, subject } of all) {
    const digest = definitionDigest(def);
    const pin = pins.get(key);
    const about = subject ? { subject } : {};
    if (!pin) {
      if (policy.newTools === "block")
        review.pending.set(key, { tool: key, ...about, kind: "new", current: digest, changes: [], withheld: true });
      else review.record.push({ tool: key, pin: pinOf(def, now) });
    } else if (pin.digest !== digest) {
      review.pending.set(key, {
        tool: key,
        ...about,
        kind: "changed",
        pinned: pin.digest,
        current: digest,
        changes: diffDefinitions(pin.definition, def),
        withheld: policy.mode === "block",
      });
    }
  }
  return review;
}

/** A pin of `def` as of `now`. */
export function pinOf(def: Definition, now = new Date(), approvedBy?: string): Pin {
  return { digest: definitionDigest(def), definition: def, pinnedAt: now.toISOString(), ...(approvedBy ? { approvedBy } : {}) };
}
