import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rename, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort } from "./free-port.js";

/** The Keycloak release the tests run (Maven Central `org.keycloak:keycloak-quarkus-dist`). */
const KEYCLOAK_VERSION = "26.7.3";

/** The realm every OAuth test shares (test/fixtures/keycloak/toolnexus-realm.json). */
const KEYCLOAK_REALM_FILE = path.resolve(import.meta.dirname, "../fixtures/keycloak/toolnexus-realm.json");

/**
 * Where the distribution is kept between runs: TOOLNEXUS_KEYCLOAK_CACHE, else
 * ~/.cache/toolnexus/keycloak. Shared by every clone on the machine, so CI and reruns reuse
 * both the download and Keycloak's build step (written into its lib/ on first start).
 */
function keycloakCacheDir(): string {
  return process.env.TOOLNEXUS_KEYCLOAK_CACHE ?? path.join(os.homedir(), ".cache", "toolnexus", "keycloak");
}

/**
 * The unpacked distribution, downloaded with Maven and unzipped once. The unzip goes to a
 * temp folder renamed into place, so a run killed halfway never leaves a broken copy behind.
 */
async function ensureKeycloak(): Promise<string> {
  const cache = keycloakCacheDir();
  const home = path.join(cache, `keycloak-${KEYCLOAK_VERSION}`);
  if (existsSync(path.join(home, "bin", "kc.sh"))) return home;
  await mkdir(cache, { recursive: true });
  const zip = path.join(cache, `keycloak-quarkus-dist-${KEYCLOAK_VERSION}.zip`);
  if (!existsSync(zip)) {
    execFileSync(
      "mvn",
      ["-q", "dependency:copy", `-Dartifact=org.keycloak:keycloak-quarkus-dist:${KEYCLOAK_VERSION}:zip`, `-DoutputDirectory=${cache}`],
      { stdio: "inherit" },
    );
  }
  const tmp = await mkdtemp(path.join(cache, "unzip-"));
  execFileSync("unzip", ["-q", zip, "-d", tmp], { stdio: "inherit" });
  try {
    await rename(path.join(tmp, `keycloak-${KEYCLOAK_VERSION}`), home);
  } catch (err) {
    // Another run unpacked it meanwhile: theirs is as good as ours.
    if (!existsSync(path.join(home, "bin", "kc.sh"))) throw err;
  }
  await rm(tmp, { recursive: true, force: true });
  return home;
}

function javaMajor(home: string): number {
  try {
    const m = /JAVA_VERSION="(\d+)/.exec(readFileSync(path.join(home, "release"), "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * A JDK new enough for Keycloak 26 (21 or later): TOOLNEXUS_KEYCLOAK_JAVA_HOME, JAVA_HOME, or the
 * newest under /usr/lib/jvm (the machine's default java is 17, too old).
 */
function findJavaHome(): string {
  const candidates = [process.env.TOOLNEXUS_KEYCLOAK_JAVA_HOME, process.env.JAVA_HOME].filter((d): d is string => !!d);
  const jvm = "/usr/lib/jvm";
  if (existsSync(jvm)) candidates.push(...readdirSync(jvm).map((d) => path.join(jvm, d)));
  const fit = candidates.filter((d) => javaMajor(d) >= 21).sort((a, b) => javaMajor(b) - javaMajor(a));
  if (!fit[0]) throw new Error(`Keycloak ${KEYCLOAK_VERSION} needs a Java 21 or later: set TOOLNEXUS_KEYCLOAK_JAVA_HOME`);
  return fit[0];
}

/** A running Keycloak on 127.0.0.1 with the toolnexus realm imported. */
export interface KeycloakServer {
  /** http://127.0.0.1:<port> */
  url: string;
  realm: string;
  /** The realm's issuer (what tokens carry in `iss`). */
  issuer: string;
  adminUser: string;
  adminPassword: string;
  /** Seconds from spawn to the realm's metadata answering. */
  startSeconds: number;
  stop(): Promise<void>;
}

/**
 * Starts `kc.sh start-dev --import-realm` on a free port with its database in a fresh temp
 * folder: the run's own Keycloak home links the cached distribution's folders and keeps
 * data/ (database and import) to itself, so runs never share state. Ready when the realm's
 * OpenID configuration answers 200.
 */
export async function startKeycloak(realmFile = KEYCLOAK_REALM_FILE, timeoutMs = 300_000): Promise<KeycloakServer> {
  const dist = await ensureKeycloak();
  const realm = (JSON.parse(readFileSync(realmFile, "utf8")) as { realm: string }).realm;
  const home = await mkdtemp(path.join(os.tmpdir(), "toolnexus-keycloak-"));
  for (const dir of ["bin", "lib", "conf", "providers", "themes"]) await symlink(path.join(dist, dir), path.join(home, dir));
  await mkdir(path.join(home, "data", "import"), { recursive: true });
  await copyFile(realmFile, path.join(home, "data", "import", path.basename(realmFile)));

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const adminUser = "admin";
  const adminPassword = `admin-${Math.random().toString(36).slice(2)}`;
  const started = Date.now();
  // Its own process group: kc.sh runs java as a child, and stop() must end both.
  const child: ChildProcess = spawn(
    path.join(dist, "bin", "kc.sh"),
    [`-Dkc.home.dir=${home}`, "start-dev", "--http-port", String(port), "--http-host", "127.0.0.1", "--import-realm"],
    {
      cwd: home,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        JAVA_HOME: findJavaHome(),
        KC_BOOTSTRAP_ADMIN_USERNAME: adminUser,
        KC_BOOTSTRAP_ADMIN_PASSWORD: adminPassword,
      },
    },
  );
  let log = "";
  const keep = (c: Buffer) => (log = (log + c.toString("utf8")).slice(-20_000));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        /* already gone */
      }
      await exited;
    }
    await rm(home, { recursive: true, force: true });
  };
  const issuer = `${url}/realms/${realm}`;
  try {
    await waitReady(`${issuer}/.well-known/openid-configuration`, child, timeoutMs);
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n--- keycloak log (tail) ---\n${log.slice(-4000)}`);
  }
  return { url, realm, issuer, adminUser, adminPassword, startSeconds: (Date.now() - started) / 1000, stop };
}

async function waitReady(metadataUrl: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`keycloak exited with ${child.exitCode} before it was ready`);
    try {
      const res = await fetch(metadataUrl, { signal: AbortSignal.timeout(5_000) });
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > end) throw new Error(`keycloak did not answer ${metadataUrl} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
