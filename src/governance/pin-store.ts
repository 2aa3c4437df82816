import type { Pin } from "./tool-definition.js";

/** Where pins are kept: a file, Redis (shared by replicas), or the process. */
export interface PinStore {
  /** Every pin. Rejects when the store is unreadable or corrupt. */
  load(): Promise<Map<string, Pin>>;
  /** Records (or replaces) one pin. */
  save(tool: string, pin: Pin): Promise<void>;
  /** Forgets one pin, or every pin when `tool` is undefined. */
  remove(tool?: string): Promise<void>;
  /** Rejects when pins could not be saved (checked at start-up). */
  checkWritable(): Promise<void>;
  /** Calls `fn` when another process changed the pins (an approval elsewhere). */
  watch?(fn: () => void): void;
  /** Stops watching and lets go of connections. */
  close?(): Promise<void>;
  /** What the store is, for logs and /status ("file /x/pins.json", "redis", "memory"). */
  readonly describe: string;
}

/** Pins in the process only: a restart forgets them. */
export class MemoryPinStore implements PinStore {
  readonly describe = "memory";
  private readonly pins = new Map<string, Pin>();

  async load(): Promise<Map<string, Pin>> {
    return new Map(this.pins);
  }

  async save(tool: string, pin: Pin): Promise<void> {
    this.pins.set(tool, pin);
  }

  async remove(tool?: string): Promise<void> {
    if (tool === undefined) this.pins.clear();
    else this.pins.delete(tool);
  }

  async checkWritable(): Promise<void> {}
}

/** True when `v` has the shape of a {@link Pin} (a file or Redis value may have been edited by hand). */
export function isPin(v: unknown): v is Pin {
  if (typeof v !== "object" || v === null) return false;
  const p = v as Partial<Pin>;
  return (
    typeof p.digest === "string" &&
    typeof p.pinnedAt === "string" &&
    typeof p.definition === "object" &&
    p.definition !== null &&
    typeof p.definition.name === "string" &&
    // A prompt or resource template may have no description; a tool always has one.
    ["string", "undefined"].includes(typeof p.definition.description)
  );
}
