import { diffDefinitions, type DefinitionChange } from "./pin-diff.js";
import { definitionDigest, definitionOf, type Pin, type ToolDefinition } from "./tool-definition.js";

/** How definitions are enforced: `pinning.mode` and `pinning.newTools`. */
export interface PinPolicy {
  mode: "off" | "warn" | "block";
  newTools: "allow" | "block";
}

/** A tool whose definition is not the pinned one (or that was never pinned and new tools need approval). */
export interface PendingChange {
  tool: string;
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

/**
 * Compares every tool of a catalog with its pin. A tool seen for the first time is recorded
 * (or, with `newTools: block`, held for approval); a tool whose digest differs is pending, and
 * withheld in `block` mode. A tool whose definition came back to its pin is simply not pending.
 */
export function reviewCatalog(
  tools: readonly { name: string; description: string; inputSchema: Record<string, unknown> }[],
  pins: ReadonlyMap<string, Pin>,
  policy: PinPolicy,
  now = new Date(),
): Review {
  const review: Review = { record: [], pending: new Map() };
  if (policy.mode === "off") return review;
  for (const tool of tools) {
    const def = definitionOf(tool);
    const digest = definitionDigest(def);
    const pin = pins.get(tool.name);
    if (!pin) {
      if (policy.newTools === "block")
        review.pending.set(tool.name, { tool: tool.name, kind: "new", current: digest, changes: [], withheld: true });
      else review.record.push({ tool: tool.name, pin: pinOf(def, now) });
    } else if (pin.digest !== digest) {
      review.pending.set(tool.name, {
        tool: tool.name,
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
export function pinOf(def: ToolDefinition, now = new Date(), approvedBy?: string): Pin {
  return { digest: definitionDigest(def), definition: def, pinnedAt: now.toISOString(), ...(approvedBy ? { approvedBy } : {}) };
}
