import { chmod, readFile, rename, writeFile } from "node:fs/promises";

/**
 * Where the vault's encrypted entries live: opaque strings per owner (a digest of the caller)
 * and connection. Implementations: memory (one process), a file, Redis (every replica). The
 * store never sees a token in the clear (credentials/vault-cipher.ts encrypts before).
 */
export interface VaultStore {
  get(owner: string, source: string): Promise<string | undefined>;
  set(owner: string, source: string, blob: string): Promise<void>;
  /** True when there was an entry. */
  delete(owner: string, source: string): Promise<boolean>;
  /** Every entry of `owner`, by connection. */
  list(owner: string): Promise<Record<string, string>>;
  /** True the first time `id` is claimed within `ttlMs`: a login's state is used once. */
  claimOnce(id: string, ttlMs: number): Promise<boolean>;
  /** Where the entries are, for the start-up log. */
  readonly describe: string;
}

/** Entries in this process only (no `vault.file` and no `redis:`): lost at restart. */
export class MemoryVaultStore implements VaultStore {
  readonly describe: string = "memory";
  protected entries = new Map<string, Map<string, string>>();
  private readonly claimed = new Map<string, number>();

  async get(owner: string, source: string): Promise<string | undefined> {
    await this.ready();
    return this.entries.get(owner)?.get(source);
  }

  async set(owner: string, source: string, blob: string): Promise<void> {
    await this.ready();
    let m = this.entries.get(owner);
    if (!m) this.entries.set(owner, (m = new Map()));
    m.set(source, blob);
    await this.persist();
  }

  async delete(owner: string, source: string): Promise<boolean> {
    await this.ready();
    const had = this.entries.get(owner)?.delete(source) ?? false;
    if (had) await this.persist();
    return had;
  }

  async list(owner: string): Promise<Record<string, string>> {
    await this.ready();
    return Object.fromEntries(this.entries.get(owner) ?? []);
  }

  claimOnce(id: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    for (const [k, until] of this.claimed) if (until < now) this.claimed.delete(k);
    if (this.claimed.has(id)) return Promise.resolve(false);
    this.claimed.set(id, now + ttlMs);
    return Promise.resolve(true);
  }

  protected ready(): Promise<void> {
    return Promise.resolve();
  }

  protected persist(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Entries in one JSON file (`vault.file`), mode 0600, rewritten whole through a temporary file
 * and a rename so a crash never leaves half a file. One replica: a login's state is claimed in
 * this process.
 */
export class FileVaultStore extends MemoryVaultStore {
  override readonly describe: string;
  private loading?: Promise<void>;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly file: string) {
    super();
    this.describe = `file ${file}`;
  }

  protected override ready(): Promise<void> {
    this.loading ??= readFile(this.file, "utf8").then(
      (text) => {
        const doc = JSON.parse(text) as { entries?: Record<string, Record<string, string>> };
        for (const [owner, m] of Object.entries(doc.entries ?? {})) this.entries.set(owner, new Map(Object.entries(m)));
      },
      (err: NodeJS.ErrnoException) => {
        if (err.code !== "ENOENT") throw new Error(`vault.file ${this.file} cannot be read: ${err.message}`);
      },
    );
    return this.loading;
  }

  protected override persist(): Promise<void> {
    const doc = { version: 1, entries: Object.fromEntries([...this.entries].map(([o, m]) => [o, Object.fromEntries(m)])) };
    const tmp = `${this.file}.${process.pid}.tmp`;
    this.writing = this.writing.then(async () => {
      await writeFile(tmp, JSON.stringify(doc), { mode: 0o600 });
      await chmod(tmp, 0o600);
      await rename(tmp, this.file);
    });
    return this.writing;
  }
}
