import { readFileSync } from "node:fs";
import path from "node:path";
import type { KeycloakInfo } from "./keycloak.js";

/** The upstream's own realm (test/fixtures/keycloak/upstream-realm.json): users, client and secret. */
export const UPSTREAM_REALM = {
  realm: "upstream",
  client: { clientId: "toolnexus-upstream", clientSecret: "toolnexus-upstream-secret" },
  /** What the client's audience mapper puts in `aud` (Keycloak ignores RFC 8707 `resource`). */
  audience: "upstream-mcp",
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
  return `${kc.url}/realms/${name}`;
}

/** Removes a realm made by {@link createUpstreamRealm}. */
export async function deleteUpstreamRealm(kc: KeycloakInfo, name: string): Promise<void> {
  const token = await adminToken(kc);
  await fetch(`${kc.url}/admin/realms/${name}`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } });
}
