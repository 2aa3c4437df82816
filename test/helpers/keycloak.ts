import { inject } from "vitest";

/** What test/keycloak-setup.ts provides: the run's one Keycloak (see keycloak-server.ts). */
export interface KeycloakInfo {
  url: string;
  realm: string;
  issuer: string;
  adminUser: string;
  adminPassword: string;
}

/** Users, clients and secrets of test/fixtures/keycloak/toolnexus-realm.json. */
export const REALM = {
  user: { username: "alice", password: "alice-password", group: "engineers" },
  /** Public client with the password grant, for tests that only need a user's token. */
  testClient: "toolnexus-test",
  /** Confidential client for the client-credentials grant (machine callers). */
  cli: { clientId: "toolnexus-cli", clientSecret: "toolnexus-cli-secret" },
  /** Confidential client allowed standard token exchange to mcp-upstream and http-upstream. */
  gateway: { clientId: "toolnexus-gateway", clientSecret: "toolnexus-gateway-secret" },
  scopes: ["tools:read", "tools:call"],
} as const;

/** The run's Keycloak (started by the global setup when a test under test/oauth/ runs). */
export function keycloak(): KeycloakInfo {
  const kc = inject("keycloak");
  if (!kc) throw new Error("no Keycloak in this run: test/keycloak-setup.ts starts it for files under test/oauth/");
  return kc;
}

/** An OAuth token response (the fields the tests read). */
export interface TokenResponse {
  access_token: string;
  expires_in: number;
  scope?: string;
  refresh_token?: string;
  token_type: string;
}

async function tokenRequest(kc: KeycloakInfo, form: Record<string, string>, realm = kc.realm): Promise<TokenResponse> {
  const res = await fetch(`${kc.url}/realms/${realm}/protocol/openid-connect/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  const body = (await res.json()) as TokenResponse & { error?: string; error_description?: string };
  if (!res.ok) throw new Error(`token request failed: ${res.status} ${body.error}: ${body.error_description}`);
  return body;
}

/**
 * A user's access token by the password grant of the test client (alice by default), with
 * tools:read and tools:call unless `scope` says otherwise (tools:call is optional there).
 */
export async function userToken(opts: { scope?: string; username?: string; password?: string } = {}): Promise<TokenResponse> {
  return tokenRequest(keycloak(), {
    grant_type: "password",
    client_id: REALM.testClient,
    username: opts.username ?? REALM.user.username,
    password: opts.password ?? REALM.user.password,
    scope: opts.scope ?? "openid tools:call",
  });
}

/** A machine token by the client-credentials grant (toolnexus-cli by default). */
export async function clientCredentialsToken(
  opts: { clientId?: string; clientSecret?: string; scope?: string } = {},
): Promise<TokenResponse> {
  const form: Record<string, string> = {
    grant_type: "client_credentials",
    client_id: opts.clientId ?? REALM.cli.clientId,
    client_secret: opts.clientSecret ?? REALM.cli.clientSecret,
  };
  if (opts.scope) form.scope = opts.scope;
  return tokenRequest(keycloak(), form);
}

async function admin(kc: KeycloakInfo, method: string, route: string, body?: unknown): Promise<Response> {
  const { access_token } = await tokenRequest(
    kc,
    { grant_type: "password", client_id: "admin-cli", username: kc.adminUser, password: kc.adminPassword },
    "master",
  );
  const res = await fetch(`${kc.url}/admin/realms/${kc.realm}${route}`, {
    method,
    headers: { authorization: `Bearer ${access_token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`keycloak admin ${method} ${route}: ${res.status} ${await res.text()}`);
  return res;
}

/**
 * Makes tokens carrying the given scopes (tools:read and tools:call by default) also name
 * `audience` in `aud`. Keycloak ignores the RFC 8707 `resource` parameter, so a gateway on a
 * random port needs a mapper for its own URL; each test adds its own, idempotently, and the
 * shared realm's tokens then name every such URL (harmless: each gateway checks its own).
 */
export async function addAudience(audience: string, scopes: readonly string[] = REALM.scopes): Promise<void> {
  const kc = keycloak();
  const all = (await (await admin(kc, "GET", "/client-scopes")).json()) as { id: string; name: string }[];
  for (const name of scopes) {
    const scope = all.find((s) => s.name === name);
    if (!scope) throw new Error(`no client scope ${name} in the realm`);
    const mappers = (await (await admin(kc, "GET", `/client-scopes/${scope.id}/protocol-mappers/models`)).json()) as { name: string }[];
    const mapperName = `audience ${audience}`;
    if (mappers.some((m) => m.name === mapperName)) continue;
    await admin(kc, "POST", `/client-scopes/${scope.id}/protocol-mappers/models`, {
      name: mapperName,
      protocol: "openid-connect",
      protocolMapper: "oidc-audience-mapper",
      config: { "included.custom.audience": audience, "access.token.claim": "true", "introspection.token.claim": "true" },
    });
  }
}

/**
 * Drives Keycloak's login form the way a browser would, over plain HTTP: GET the
 * authorization URL (keeping cookies), POST the form's action with the user's credentials,
 * follow redirects while they stay on Keycloak, and return the first redirect that leaves it
 * (the client's redirect URI with `code` and `state`), without requesting it.
 */
export async function loginWithForm(authorizationUrl: string, user: { username: string; password: string } = REALM.user): Promise<URL> {
  const kcOrigin = new URL(authorizationUrl).origin;
  const cookies = new Map<string, string>();
  const remember = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const pair = c.split(";")[0] ?? "";
      const eq = pair.indexOf("=");
      cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
    }
  };
  const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  let res = await fetch(authorizationUrl, { redirect: "manual" });
  remember(res);
  const html = await res.text();
  const action = /<form[^>]*id="kc-form-login"[^>]*action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no login form at the authorization URL (status ${res.status}): ${html.slice(0, 500)}`);
  let next = new URL(action.replaceAll("&amp;", "&"), kcOrigin).toString();
  res = await fetch(next, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookieHeader() },
    body: new URLSearchParams({ username: user.username, password: user.password, credentialId: "" }),
  });
  for (let hops = 0; hops < 10; hops++) {
    remember(res);
    const location = res.headers.get("location");
    if (res.status < 300 || res.status >= 400 || !location) {
      throw new Error(`login did not redirect (status ${res.status}): ${(await res.text()).slice(0, 500)}`);
    }
    next = new URL(location, next).toString();
    if (new URL(next).origin !== kcOrigin) return new URL(next);
    res = await fetch(next, { redirect: "manual", headers: { cookie: cookieHeader() } });
  }
  throw new Error("too many redirects during login");
}

/** The `auth.jwt` section trusting the run's Keycloak; no audience: with publicUrl it defaults to the resource. */
export function keycloakJwt(extra: Record<string, unknown> = {}) {
  const { issuer } = keycloak();
  return {
    issuer,
    jwksUri: `${issuer}/protocol/openid-connect/certs`,
    clockTolerance: 0,
    requireExp: true,
    groupsClaim: "groups",
    jwksTimeoutMs: 3000,
    ...extra,
  };
}
