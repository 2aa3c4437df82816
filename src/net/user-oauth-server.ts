import * as oauth from "oauth4webapi";
import type { UserOAuthAuth } from "../core/upstream-auth.js";
import { failed } from "./user-oauth-errors.js";

/**
 * Who the gateway is at an upstream's authorization server: finding the server (RFC 9728,
 * then OIDC or RFC 8414 discovery), the gateway's client there (pre-registered, its Client ID
 * Metadata Document, or registered now), and which client to act as for tokens another
 * replica's client obtained. user-oauth.ts runs the logins, refreshes and revocations.
 */

// Where a Client ID Metadata Document may be served over plain http: nobody else can sit on
// the path to a loopback host, and tests and a gateway on a developer's machine run there.
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * The authorization server of `cfg`'s upstream and the gateway's client there: the server the
 * config names, else the one the upstream's protected-resource metadata (RFC 9728) names; then
 * its OIDC or RFC 8414 metadata; then the client ({@link gatewayClient}).
 */
export async function resolveServer(
  cfg: UserOAuthAuth,
  clientMetadataUrl: string | undefined,
  redirectUri: string | undefined,
  signal: AbortSignal,
): Promise<ResolvedServer> {
  let issuer = cfg.authorizationServer;
  let scopes = cfg.scopes;
  if (issuer === undefined) {
    const resource = new URL(cfg.resource);
    const res = await oauth.resourceDiscoveryRequest(resource, { signal, [oauth.allowInsecureRequests]: resource.protocol === "http:" });
    const rs = await oauth.processResourceDiscoveryResponse(resource, res);
    issuer = rs.authorization_servers?.[0];
    if (!issuer) throw failed("the upstream's protected-resource metadata names no authorization server");
    scopes ??= rs.scopes_supported ? [...rs.scopes_supported] : undefined;
  }
  const as = await discoverServer(new URL(issuer), signal);
  const { client, auth, registered } = await gatewayClient(cfg, clientMetadataUrl, as, redirectUri, scopes, signal);
  return { as, client, auth, registered, scopes: scopes ?? [] };
}

/**
 * The gateway's client at `as`, in this order: the pre-registered one; the gateway's Client
 * ID Metadata Document where the server says it fetches them; one registered now (RFC 7591)
 * for this gateway's callback.
 */
async function gatewayClient(
  cfg: UserOAuthAuth,
  metadataUrl: string | undefined,
  as: oauth.AuthorizationServer,
  redirectUri: string | undefined,
  scopes: string[] | undefined,
  signal: AbortSignal,
): Promise<GatewayClient & { registered: boolean }> {
  const { clientId, clientSecret } = cfg;
  if (clientId !== undefined) {
    const auth = clientSecret === undefined ? oauth.None() : oauth.ClientSecretBasic(clientSecret);
    return { client: { client_id: clientId }, auth, registered: false };
  }
  // A public client whose id is the document's URL: the server fetches the document, nothing
  // is registered, and every replica (and every restart) is the same client.
  if (as.client_id_metadata_document_supported === true && metadataUrl !== undefined && isClientIdUrl(metadataUrl))
    return { client: { client_id: metadataUrl }, auth: oauth.None(), registered: false };
  if (!as.registration_endpoint) throw failed("no clientId is configured and the authorization server offers no dynamic registration");
  // "invalid_client": the caller is asked to log in again, which registers a client anew.
  if (redirectUri === undefined) throw failed("the dynamically registered client was lost; log in again", "invalid_client");
  const res = await oauth.dynamicClientRegistrationRequest(
    as,
    {
      client_name: "toolnexus",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(scopes && scopes.length > 0 ? { scope: scopes.join(" ") } : {}),
    },
    { signal, [oauth.allowInsecureRequests]: isHttp(as.registration_endpoint) },
  );
  const client = await oauth.processDynamicClientRegistrationResponse(res);
  return { client: { client_id: client.client_id }, auth: oauth.None(), registered: true };
}

/** OpenID Connect discovery, then RFC 8414. */
async function discoverServer(issuer: URL, signal: AbortSignal): Promise<oauth.AuthorizationServer> {
  let last: unknown;
  for (const algorithm of ["oidc", "oauth2"] as const) {
    try {
      const res = await oauth.discoveryRequest(issuer, { algorithm, signal, [oauth.allowInsecureRequests]: issuer.protocol === "http:" });
      return await oauth.processDiscoveryResponse(issuer, res);
    } catch (err) {
      if (signal.aborted) throw err;
      last = err;
    }
  }
  throw last;
}

/** Which authorization server and client issued tokens: only that client may refresh or revoke them. */
export interface TokenOrigin {
  issuer?: string;
  clientId?: string;
}

/** A client of the authorization server, and how it authenticates at the token endpoint. */
export interface GatewayClient {
  client: oauth.Client;
  auth: oauth.ClientAuth;
}

/** The authorization server and the gateway's client there. */
export interface ResolvedServer extends GatewayClient {
  as: oauth.AuthorizationServer;
  /** The client was registered by this replica (RFC 7591): every replica has one of its own. */
  registered: boolean;
  scopes: string[];
}

/**
 * The client to act as for a login or tokens of `clientId`: the one in force when it is that
 * one (or `clientId` is unknown). Where the client in force was registered dynamically, each
 * replica (and each restart) has registered its own public client for the same callback, so
 * one of them may have started the login or received the tokens: act as that client, which
 * needs no secret. `clientId` is the gateway's own record (sealed in the login's state, or
 * kept in the vault beside the tokens), never the caller's. Otherwise `refused()`.
 */
export function asClient(resolved: ResolvedServer, clientId: string | undefined, refused: () => Error): GatewayClient {
  if (clientId === undefined || clientId === resolved.client.client_id) return resolved;
  if (resolved.registered) return { client: { client_id: clientId }, auth: oauth.None() };
  throw refused();
}

/**
 * The client to refresh or revoke tokens as: the one that received them ({@link asClient}).
 * Refuses to send a token to another server, or as another client, than the one that issued it.
 */
export function issuedBy(resolved: ResolvedServer, from: TokenOrigin, what: string): GatewayClient {
  // "invalid_client": the caller is asked to log in again, with the client in force now.
  const refused = () => failed(`the tokens were issued to another client than the one in force; they are not ${what}`, "invalid_client");
  if (from.issuer !== undefined && from.issuer !== resolved.as.issuer) throw refused();
  return asClient(resolved, from.clientId, refused);
}

/**
 * True for a URL an authorization server can take as a client id naming a metadata document:
 * https with a path, no fragment and no user info, as the document's specification requires.
 * Plain http is allowed for a loopback host only (see LOOPBACK_HOSTS).
 */
function isClientIdUrl(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.pathname === "/" || u.hash !== "" || u.username !== "" || u.password !== "") return false;
  return u.protocol === "https:" || (u.protocol === "http:" && LOOPBACK_HOSTS.has(u.hostname));
}

/** True for a plain-http URL: oauth4webapi refuses one unless told it is allowed. */
export function isHttp(url: string | undefined): boolean {
  return url?.startsWith("http:") === true;
}
