import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";

/**
 * The vault's encryption: AES-256-GCM with a key derived (HKDF-SHA256) from
 * `server.stateSecret` under a label of its own, so no sealed state ever decrypts as a vault
 * entry and the other way round. The owner and the connection are bound in as associated data:
 * an entry copied to another caller's key, or to another connection, does not open.
 */
export class VaultCipher {
  private readonly key: Buffer;

  /** Without a secret, a random key of this process: entries do not survive a restart. */
  constructor(secret: string | undefined) {
    const ikm = secret === undefined ? randomBytes(32) : Buffer.from(secret, "utf8");
    this.key = Buffer.from(hkdfSync("sha256", ikm, Buffer.alloc(0), "toolnexus vault v1", 32));
  }

  /** `value` as JSON, encrypted for (owner, source): base64url of version, IV, tag and ciphertext. */
  encrypt(owner: string, source: string, value: unknown): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(aad(owner, source));
    const body = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
    return Buffer.concat([Buffer.from([1]), iv, cipher.getAuthTag(), body]).toString("base64url");
  }

  /** The value, or undefined when the entry was altered, moved, or sealed with another key. */
  decrypt<T>(owner: string, source: string, blob: string): T | undefined {
    const raw = Buffer.from(blob, "base64url");
    if (raw.length < 30 || raw[0] !== 1) return undefined;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(1, 13));
      decipher.setAAD(aad(owner, source));
      decipher.setAuthTag(raw.subarray(13, 29));
      const plain = Buffer.concat([decipher.update(raw.subarray(29)), decipher.final()]);
      return JSON.parse(plain.toString("utf8")) as T;
    } catch {
      return undefined;
    }
  }
}

function aad(owner: string, source: string): Buffer {
  return Buffer.from(`${owner}\n${source}`, "utf8");
}

/**
 * The name a caller's entries are kept under: a digest of its principal, so a Redis key or the
 * vault file lists no caller ids.
 */
export function ownerId(callerKey: string): string {
  return createHash("sha256").update(`toolnexus vault owner\n${callerKey}`).digest("base64url");
}
