import { describe, expect, it } from "vitest";
import { ownerId, VaultCipher } from "../../../src/server/credentials/vault-cipher.js";

describe("the vault's encryption", () => {
  const cipher = new VaultCipher("k".repeat(40));
  const value = { mode: "user-secret", secret: "sk-live-123", connectedAt: 1 };

  it("opens what it sealed for the same owner and connection, and nothing else", () => {
    const blob = cipher.encrypt("o1", "gh", value);
    expect(blob).not.toContain("sk-live");
    expect(Buffer.from(blob, "base64url").toString("latin1")).not.toContain("sk-live");
    expect(cipher.decrypt("o1", "gh", blob)).toEqual(value);
    // Moved to another caller or connection, altered, or under another key: unreadable.
    expect(cipher.decrypt("o2", "gh", blob)).toBeUndefined();
    expect(cipher.decrypt("o1", "gl", blob)).toBeUndefined();
    const raw = Buffer.from(blob, "base64url");
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    expect(cipher.decrypt("o1", "gh", raw.toString("base64url"))).toBeUndefined();
    expect(new VaultCipher("j".repeat(40)).decrypt("o1", "gh", blob)).toBeUndefined();
    expect(cipher.decrypt("o1", "gh", "short")).toBeUndefined();
  });

  it("names owners by a digest: no caller id in a key, one name per principal and kind", () => {
    expect(ownerId("apiKey:alice")).not.toContain("alice");
    expect(ownerId("apiKey:alice")).toBe(ownerId("apiKey:alice"));
    expect(ownerId("apiKey:alice")).not.toBe(ownerId("jwt:alice"));
  });
});
