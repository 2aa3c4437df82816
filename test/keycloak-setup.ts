import { readdirSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import type { KeycloakInfo } from "./helpers/keycloak.js";
import { startKeycloak } from "./helpers/keycloak-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's Keycloak, or null when no test of this run needs one. */
    keycloak: KeycloakInfo | null;
  }
}

/** The test files that need Keycloak: everything under test/oauth/. */
const OAUTH_DIR = path.resolve(import.meta.dirname, "oauth");

/**
 * Whether this run includes a test that needs Keycloak. Its first start takes about a minute
 * on two cores, so a run filtered to other files (`vitest run test/server/x.test.ts`) does
 * without; the filters are vitest's own (substrings of a file's path).
 */
function needed(project: TestProject): boolean {
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  if (!filters || filters.length === 0) return true;
  let files: string[] = [];
  try {
    files = readdirSync(OAUTH_DIR, { recursive: true, encoding: "utf8" }).map((f) => path.join(OAUTH_DIR, f));
  } catch {
    return false;
  }
  return files.some((f) => filters.some((filter) => f.includes(filter) || f.includes(path.resolve(filter))));
}

/**
 * Starts ONE Keycloak (realm test/fixtures/keycloak/toolnexus-realm.json) for the whole run;
 * tests read it with inject("keycloak") through test/helpers/keycloak.ts.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!needed(project)) {
    project.provide("keycloak", null);
    return undefined;
  }
  // A Keycloak already running with this realm (while iterating on one test): its URL and admin.
  const given = process.env.TOOLNEXUS_KEYCLOAK_URL;
  if (given) {
    const [adminUser = "admin", adminPassword = ""] = (process.env.TOOLNEXUS_KEYCLOAK_ADMIN ?? "").split(":");
    project.provide("keycloak", { url: given, realm: "toolnexus", issuer: `${given}/realms/toolnexus`, adminUser, adminPassword });
    return undefined;
  }
  const kc = await startKeycloak();
  console.log(`keycloak ${kc.url} ready in ${kc.startSeconds.toFixed(1)} s`);
  const { url, realm, issuer, adminUser, adminPassword } = kc;
  project.provide("keycloak", { url, realm, issuer, adminUser, adminPassword });
  return () => kc.stop();
}
