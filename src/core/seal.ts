import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { ToolnexusError } from "./errors.js";

/**
 * Seals state the gateway hands to a caller and takes back later (an input request's
 * `requestState`, a pending id, a caller's token kept for an execution): AES-256-GCM with a
 * key derived from `server.stateSecret`, so any replica with the same secret opens it and no
 * caller can read or alter it. `purpose` is bound into the ciphertext: a token sealed for one
 * use is refused for another.
 */
export interface Sealer {
  /** An opaque base64url string carrying `value` until `ttlMs` from now. */
  seal(purpose: string, value: unknown, ttlMs: number): string;
  /** The value sealed for `purpose`; INVALID_STATE when altered, foreign, for another purpose or expired. */
  open<T = unknown>(purpose: string, token: string): T;
  /** False when the secret was generated at start-up (one replica only, lost at restart). */
  readonly shared: boolean;
}

/**
 * Every use the gateway seals state for, in one table: the purpose is bound into the
 * ciphertext, so a state sealed for one use never opens as another.
 */
export const SEAL_PURPOSES = {
  /** An input request's state: a REST pending's id, a 2026 `requestState` (core/input/requests.ts). */
  inputRequest: "input-request",
  /** The `requestState` of a held call's retry on `/mcp` (server/mcp/input/held-retry.ts). */
  heldRetry: "mcp-held",
  /** A 2025 client's relay session memo (server/mcp/input/legacy-relay.ts). */
  relaySession: "mcp-session",
  /** The id of a request relayed to a 2025 client, which its reply carries back (legacy-relay.ts). */
  relayReply: "mcp-input",
  /** A JWT caller's token kept for an execution (server/executions/engine/caller-token.ts). */
  callerToken: "caller-token",
  /** A login link's state: the caller and the connection (server/credentials/oauth-routes.ts). */
  loginLink: "login-link",
  /** The `state` sent to an upstream's authorization server: caller, connection, PKCE verifier, nonce. */
  oauthState: "oauth-state",
  /** The browser's proof, in a cookie, that it signed in as the caller who started the login. */
  oauthBrowser: "oauth-browser",
} as const;

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A Sealer keyed by `secret`; without one, by a random key of this process (one replica only). */
export function createSealer(secret: string | undefined, now: () => number = Date.now): Sealer {
  const ikm = secret === undefined ? randomBytes(32) : Buffer.from(secret, "utf8");
  const key = Buffer.from(hkdfSync("sha256", ikm, Buffer.alloc(0), "toolnexus sealed state v1", 32));
  return {
    shared: secret !== undefined,
    seal(purpose, value, ttlMs) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(purpose, "utf8"));
      const plain = Buffer.from(JSON.stringify({ e: now() + ttlMs, v: value }), "utf8");
      const body = Buffer.concat([cipher.update(plain), cipher.final()]);
      return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]).toString("base64url");
    },
    open<T>(purpose: string, token: string): T {
      const raw = Buffer.from(token, "base64url");
      if (raw.length < 1 + IV_BYTES + TAG_BYTES + 1 || raw[0] !== VERSION) throw invalidState();
      const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(1, 1 + IV_BYTES));
      decipher.setAAD(Buffer.from(purpose, "utf8"));
      decipher.setAuthTag(raw.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
      let plain: Buffer;
      try {
        plain = Buffer.concat([decipher.update(raw.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
      } catch {
        throw invalidState();
      }
      const { e, v } = JSON.parse(plain.toString("utf8")) as { e: number; v: T };
      if (now() > e) throw new ToolnexusError("INVALID_STATE", "This state has expired");
      return v;
    },
  };
}

/** The one error of a sealed state that does not open here (foreign, altered, another caller's or use). */
export function invalidState(): ToolnexusError {
  // One message for every cause: a caller learns nothing about why a forged state failed.
  return new ToolnexusError("INVALID_STATE", "This state was not issued by this gateway, or was altered");
}

const sealers = new Map<string | undefined, Sealer>();

/**
 * The process's one Sealer for `secret`: the service and every source that seals get the same
 * instance, so without a configured secret they still share one random key (a state sealed by
 * an MCP source opens wherever the service hands it back, and survives a config reload).
 */
export function sharedSealer(secret: string | undefined): Sealer {
  let s = sealers.get(secret);
  if (!s) sealers.set(secret, (s = createSealer(secret)));
  return s;
}
