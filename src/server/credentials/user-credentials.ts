import { pending } from "../../core/input/pending.js";
import { SEAL_PURPOSES, type Sealer } from "../../core/seal.js";
import type { Logger, ToolResult, UpstreamCredential } from "../../core/types.js";
import type { UserAuth, UserOAuthAuth, UserSecretAuth } from "../../core/upstream-auth.js";
import { UserOAuthClient, UserOAuthError } from "../../net/user-oauth.js";
import { ownerKey, type Caller } from "../auth/index.js";
import { callbackUrlOf, clientMetadataUrlOf } from "./client-metadata.js";
import type { LoginRequired, UserCredentialResolver } from "../calls/upstream-credentials.js";
import type { StoredCredential, Vault } from "./vault.js";

/** An access token is refreshed this long before it expires, so it never expires in flight. */
const REFRESH_MARGIN_MS = 10_000;
/** How long a login link stays valid. */
export const LOGIN_LINK_TTL_MS = 10 * 60 * 1000;

/** What a login link seals: the caller it is for and the connection. */
export interface LoginLink {
  c: string;
  s: string;
}

/**
 * Each caller's own upstream credential for the call pipeline: the user secret or the OAuth
 * tokens the vault holds for (caller, connection), an access token refreshed when due (a
 * rotated refresh token replaces the old one), or — when there is none, or the refresh was
 * refused — the pending that tells the caller how to connect. Nothing of a credential is
 * logged.
 */
export class UserCredentials implements UserCredentialResolver {
  private readonly clients = new Map<string, UserOAuthClient>();
  private readonly refreshing = new Map<string, Promise<StoredCredential | undefined>>();

  constructor(
    private readonly vault: Vault,
    private readonly sealer: () => Sealer,
    /** server.publicUrl of the config in force: login links start there. */
    private readonly publicUrl: () => string | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  async resolve(auth: UserAuth, caller: Caller, log: Logger): Promise<UpstreamCredential | LoginRequired> {
    const key = ownerKey(caller);
    const stored = await this.vault.get(key, auth.source);
    if (auth.mode === "user-secret") return secretOf(auth, stored);
    if (stored?.mode !== "user-oauth" || !stored.accessToken) return this.login(auth, key);
    if (stored.expiresAt === undefined || stored.expiresAt - REFRESH_MARGIN_MS > this.now()) return { bearer: stored.accessToken };
    if (!stored.refreshToken) return this.login(auth, key);
    const fresh = await this.refreshed(auth, key, stored, log);
    return fresh?.accessToken ? { bearer: fresh.accessToken } : this.login(auth, key);
  }

  async refused(auth: UserAuth, caller: Caller, _log: Logger): Promise<LoginRequired> {
    const key = ownerKey(caller);
    await this.vault.delete(key, auth.source);
    return auth.mode === "user-secret" ? { login: secretPending(auth.source) } : this.login(auth, key);
  }

  /**
   * The OAuth client of a user-oauth config (one per distinct config and publicUrl, kept across
   * calls): the publicUrl names the gateway's Client ID Metadata Document, its client id where
   * the authorization server fetches such documents, and the callback a registered client names.
   */
  client(auth: UserOAuthAuth): UserOAuthClient {
    const publicUrl = this.publicUrl();
    const clientMetadataUrl = publicUrl === undefined ? undefined : clientMetadataUrlOf(publicUrl);
    const callbackUrl = publicUrl === undefined ? undefined : callbackUrlOf(publicUrl);
    const id = `${JSON.stringify(auth)}\n${clientMetadataUrl ?? ""}`;
    let c = this.clients.get(id);
    if (!c) {
      if (this.clients.size > 1000) this.clients.clear();
      this.clients.set(id, (c = new UserOAuthClient(auth, { now: this.now, clientMetadataUrl, callbackUrl })));
    }
    return c;
  }

  /** A sealed link to `GET /oauth/start` for this caller and connection. */
  loginUrl(callerKey: string, source: string): string {
    const link: LoginLink = { c: callerKey, s: source };
    const state = this.sealer().seal(SEAL_PURPOSES.loginLink, link, LOGIN_LINK_TTL_MS);
    return `${(this.publicUrl() ?? "").replace(/\/$/, "")}/oauth/start?state=${state}`;
  }

  private login(auth: UserOAuthAuth, callerKey: string): LoginRequired {
    const url = this.loginUrl(callerKey, auth.source);
    const prompt = `Connect your ${auth.source} account: open ${url} in a browser, then retry the call`;
    const expiresAt = new Date(this.now() + LOGIN_LINK_TTL_MS).toISOString();
    return { login: pending({ kind: "login", prompt, url, data: { url, source: auth.source }, expiresAt }, prompt) };
  }

  /**
   * The credential after a refresh; undefined when the authorization server refused it (the
   * entry is forgotten: the caller logs in again, no error loop). One refresh at a time per
   * caller and connection in this process: a rotated refresh token is used once.
   */
  private refreshed(auth: UserOAuthAuth, key: string, stored: StoredCredential, log: Logger): Promise<StoredCredential | undefined> {
    const id = `${key}\n${auth.source}`;
    let p = this.refreshing.get(id);
    if (!p) {
      p = this.refresh(auth, key, stored, log).finally(() => this.refreshing.delete(id));
      this.refreshing.set(id, p);
    }
    return p;
  }

  private async refresh(auth: UserOAuthAuth, key: string, stored: StoredCredential, log: Logger): Promise<StoredCredential | undefined> {
    try {
      const t = await this.client(auth).refresh(stored.refreshToken ?? "", stored);
      const next: StoredCredential = { ...stored, ...t, connectedAt: stored.connectedAt };
      if (t.expiresAt === undefined) delete next.expiresAt;
      await this.vault.put(key, auth.source, next);
      log.debug({ source: auth.source }, "upstream token refreshed");
      return next;
    } catch (err) {
      // The server refused the refresh token (revoked, expired, rotated away): log in again.
      if (err instanceof UserOAuthError && err.oauthError !== undefined) {
        log.info({ source: auth.source, error: err.oauthError }, "upstream refresh refused; a new login is needed");
        await this.vault.delete(key, auth.source);
        return undefined;
      }
      throw err;
    }
  }
}

function secretOf(auth: UserSecretAuth, stored: StoredCredential | undefined): UpstreamCredential | LoginRequired {
  if (stored?.mode !== "user-secret" || !stored.secret) return { login: secretPending(auth.source) };
  const value = (auth.format ?? "Bearer {secret}").split("{secret}").join(stored.secret);
  return { bearer: stored.secret, header: { name: auth.header ?? "authorization", value } };
}

/** The pending of a connection whose secret the caller has not set: where to set it. */
function secretPending(source: string): ToolResult {
  const path = `/me/credentials/${encodeURIComponent(source)}`;
  const prompt = `Set your ${source} secret first: PUT ${path} with { "secret": "…" }, then retry the call`;
  return pending({ kind: "credential", prompt, data: { source, method: "PUT", path } }, prompt);
}
