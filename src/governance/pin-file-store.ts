import { access, constants, readFile, rename, writeFile } from "node:fs/promises";
import { unwatchFile, watchFile } from "node:fs";
import path from "node:path";
import { isPin, type PinStore } from "./pin-store.js";
import type { Pin } from "./tool-definition.js";

// How often a running service looks at the pin file for changes made by `toolnexus pins`.
const WATCH_INTERVAL_MS = 1000;

/**
 * Pins in one JSON file (`{ "version": 1, "pins": { <tool>: <pin> } }`), rewritten whole
 * through a temporary file and a rename, so a crash never leaves half a file. Writes are
 * serialized; the file is re-read before each write so an approval made by the CLI meanwhile
 * is kept.
 */
export class FilePinStore implements PinStore {
  readonly describe: string;
  private queue: Promise<unknown> = Promise.resolve();
  private watching?: () => void;

  constructor(private readonly file: string) {
    this.describe = `file ${file}`;
  }

  async load(): Promise<Map<string, Pin>> {
    let text: string;
    try {
      text = await readFile(this.file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return new Map();
      throw new Error(`pinning.file ${this.file} cannot be read: ${(err as Error).message}`);
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new Error(`pinning.file ${this.file} is not valid JSON`);
    }
    const pins = (doc as { pins?: unknown } | null)?.pins;
    if (typeof pins !== "object" || pins === null || Array.isArray(pins)) throw new Error(`pinning.file ${this.file} has no "pins" object`);
    const out = new Map<string, Pin>();
    for (const [tool, pin] of Object.entries(pins)) {
      if (!isPin(pin)) throw new Error(`pinning.file ${this.file}: the pin of "${tool}" is malformed`);
      out.set(tool, pin);
    }
    return out;
  }

  save(tool: string, pin: Pin): Promise<void> {
    return this.update((pins) => pins.set(tool, pin));
  }

  remove(tool?: string): Promise<void> {
    return this.update((pins) => (tool === undefined ? pins.clear() : pins.delete(tool)));
  }

  async checkWritable(): Promise<void> {
    try {
      await access(this.file, constants.W_OK);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw new Error(`pinning.file ${this.file} is not writable`);
      try {
        await access(path.dirname(this.file), constants.W_OK);
      } catch {
        throw new Error(`pinning.file ${this.file} cannot be created: its directory is missing or not writable`);
      }
    }
  }

  watch(fn: () => void): void {
    this.watching = fn;
    watchFile(this.file, { interval: WATCH_INTERVAL_MS, persistent: false }, fn);
  }

  async close(): Promise<void> {
    if (this.watching) unwatchFile(this.file, this.watching);
    await this.queue.catch(() => {});
  }

  private update(change: (pins: Map<string, Pin>) => unknown): Promise<void> {
    const run = this.queue
      .catch(() => {})
      .then(async () => {
        const pins = await this.load();
        change(pins);
        const tmp = `${this.file}.${process.pid}.tmp`;
        await writeFile(
          tmp,
          `${JSON.stringify({ version: 1, pins: Object.fromEntries([...pins].sort(([a], [b]) => a.localeCompare(b))) }, null, 2)}\n`,
          { mode: 0o600 },
        );
        await rename(tmp, this.file);
      });
    this.queue = run;
    return run;
  }
}
