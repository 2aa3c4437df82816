import { readFileSync } from "node:fs";
import path from "node:path";
import type { KeycloakInfo } from "./keycloak.js";

/** The upstream's own realm (test/fixtures/keycloak/upstream-realm.json): users, client and secret. */
export const UPSTREAM_REALM = {
  realm: "upstream",
  client: { clientId: "toolnexus-upstream", clientSecret: "toolnexus-upstream-secret" },
  /** What the client's audience mapper puts in `aud` (Keycloak ignores RFC 8707 `resource`). */
  audience: "upstream-mcp",
  /** The scope a dynamically registered client asks for (its audience and sub mappers inside). */
  dynamicScope: "upstream-tools",
  alice: { username: "alice", password: "alice-upstream-password" },
  bob: { username: "bob", password: "bob-upstream-password" },
} as const;

const FILE = path.resolve(import.meta.dirname, "../fixtures/keycloak/upstream-realm.json");

async function adminToken(kc: KeycloakInfo): Promise<string> {
  const res = await fetch(`${kc.url}/realms/master/protocol/openid-connect/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "password", client_id: "admin-cli", username: kc.adminUser, password: kc.adminPassword }),
  });
  if (!res.ok) throw new Error(`keycloak admin token: ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/**
 * Imports the upstream's realm into the run's Keycloak under a name of this file's own (so test
 * files never share it) with `redirectUri` as the client's only redirect URI; its issuer.
 */
export async function createUpstreamRealm(kc: KeycloakInfo, name: string, redirectUri: string): Promise<string> {
  const realm = JSON.parse(readFileSync(FILE, "utf8")) as { realm: string; clients: { redirectUris: string[] }[] };
  realm.realm = name;
  for (const c of realm.clients) c.redirectUris = [redirectUri];
  const token = await adminToken(kc);
  const res = await fetch(`${kc.url}/admin/realms`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(realm),
  });
  if (!res.ok && res.status !== 409) throw new Error(`keycloak realm import: ${res.status} ${await res.text()}`);
  await addDynamicScope(kc, token, name);
  return `${kc.url}/realms/${name}`;
}

/**
 * The client scope a dynamically registered client asks for (`upstream-tools`), a realm default:
 * Keycloak gives such a client only the scopes its registration names, so the audience and the
 * `sub` claim come from mappers inside it.
 */
async function addDynamicScope(kc: KeycloakInfo, token: string, realm: string): Promise<void> {
  const admin = (method: string, route: string, body?: unknown) =>
    fetch(`${kc.url}/admin/realms/${realm}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const created = await admin("POST", "/client-scopes", {
    name: UPSTREAM_REALM.dynamicScope,
    protocol: "openid-connect",
    attributes: { "include.in.token.scope": "true" },
    protocolMappers: [
      {
        name: "audience",
        protocol: "openid-connect",
        protocolMapper: "oidc-audience-mapper",
        config: { "included.custom.audience": UPSTREAM_REALM.audience, "access.token.claim": "true" },
      },
      { name: "sub", protocol: "openid-connect", protocolMapper: "oidc-sub-mapper", config: { "access.token.claim": "true" } },
    ],
  });
  if (!created.ok) throw new Error(`keycloak client scope: ${created.status} ${await created.text()}`);
  const id = (created.headers.get("location") ?? "").split("/").pop() ?? "";
  const made = await admin("PUT", `/default-default-client-scopes/${id}`);
  if (!made.ok) throw new Error(`keycloak default scope: ${made.status}`);
}

/** Removes a realm made by {@link createUpstreamRealm}. */
export async function deleteUpstreamRealm(kc: KeycloakInfo, name: string): Promise<void> {
  const token = await adminToken(kc);
  await fetch(`${kc.url}/admin/realms/${name}`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } });
}
