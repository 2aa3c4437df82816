import type { VaultCipher } from "./vault-cipher.js";
import { ownerId } from "./vault-cipher.js";
import type { VaultStore } from "./vault-store.js";

/** What the vault keeps for one caller and connection (encrypted as a whole; never sent to anyone but the upstream). */
export interface StoredCredential {
  mode: "user-secret" | "user-oauth";
  /** user-secret: the caller's secret. */
  secret?: string;
  /** user-oauth: the tokens, when the access token expires (epoch ms), and the granted scopes. */
  accessToken?: string;
  refreshToken?: string;
  expiresAt?: number;
  scope?: string;
  /** user-oauth: the authorization server and client the tokens came from (only that client refreshes or revokes them). */
  issuer?: string;
  clientId?: string;
  connectedAt: number;
}

/** One line of `GET /me/credentials`: never a token. */
export interface CredentialStatus {
  source: string;
  mode: "user-secret" | "user-oauth";
  status: "connected" | "not-connected" | "expired" | "unreadable";
  scopes?: string[];
  connectedAt?: string;
  expiresAt?: string;
}

/**
 * Each caller's upstream credentials: encrypted (vault-cipher.ts) before they reach the store,
 * keyed by a digest of the caller's principal (`apiKey:<id>`, `jwt:<sub>`) and the connection's
 * name. A credential is only ever read for the caller who stored it.
 */
export class Vault {
  // The hot path of every call: the owner's digest and the last entry read, decrypted, per
  // (owner, connection). An entry is served from here only while the store returns the very
  // same ciphertext, so a change on another replica is seen at the next read.
  private readonly owners = new Map<string, string>();
  private readonly opened = new Map<string, { blob: string; value: StoredCredential }>();

  constructor(
    readonly store: VaultStore,
    private readonly cipher: VaultCipher,
  ) {}

  async get(callerKey: string, source: string): Promise<StoredCredential | undefined> {
    const owner = this.ownerOf(callerKey);
    const blob = await this.store.get(owner, source);
    if (blob === undefined) return undefined;
    const id = `${owner}\n${source}`;
    const hit = this.opened.get(id);
    if (hit?.blob === blob) return hit.value;
    const value = this.cipher.decrypt<StoredCredential>(owner, source, blob);
    if (value) bounded(this.opened).set(id, { blob, value });
    return value;
  }

  private ownerOf(callerKey: string): string {
    let owner = this.owners.get(callerKey);
    if (owner === undefined) bounded(this.owners).set(callerKey, (owner = ownerId(callerKey)));
    return owner;
  }

  async put(callerKey: string, source: string, value: StoredCredential): Promise<void> {
    const owner = ownerId(callerKey);
    await this.store.set(owner, source, this.cipher.encrypt(owner, source, value));
  }

  /** Forgets one connection; the credential it held (for revocation), or undefined when there was none. */
  async delete(callerKey: string, source: string): Promise<StoredCredential | null | undefined> {
    const owner = ownerId(callerKey);
    const blob = await this.store.get(owner, source);
    if (blob === undefined) return undefined;
    await this.store.delete(owner, source);
    return this.cipher.decrypt<StoredCredential>(owner, source, blob) ?? null;
  }

  /** The caller's connections, without a token. */
  async list(callerKey: string, now = Date.now()): Promise<CredentialStatus[]> {
    const owner = ownerId(callerKey);
    const entries = await this.store.list(owner);
    return Object.entries(entries)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([source, blob]) => statusOf(source, this.cipher.decrypt<StoredCredential>(owner, source, blob), now));
  }
}

/** `map`, emptied first when it holds many callers' entries: a bound, not an eviction policy. */
function bounded<K, V>(map: Map<K, V>): Map<K, V> {
  if (map.size >= 10_000) map.clear();
  return map;
}

function statusOf(source: string, c: StoredCredential | undefined, now: number): CredentialStatus {
  // An entry sealed with another stateSecret (rotated) cannot be used: the caller connects again.
  if (!c) return { source, mode: "user-oauth", status: "unreadable" };
  const expired = c.mode === "user-oauth" && c.expiresAt !== undefined && c.expiresAt <= now && c.refreshToken === undefined;
  return {
    source,
    mode: c.mode,
    status: expired ? "expired" : "connected",
    ...(c.scope ? { scopes: c.scope.split(" ").filter(Boolean) } : {}),
    connectedAt: new Date(c.connectedAt).toISOString(),
    ...(c.expiresAt !== undefined ? { expiresAt: new Date(c.expiresAt).toISOString() } : {}),
  };
}
