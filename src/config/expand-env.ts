import { readFileSync } from "node:fs";
import path from "node:path";
import type { ConfigIssue } from "./config-error.js";

const VAR = /\$\{(?:file:([^}]+)|([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?)\}/g;

/**
 * Expands `${VAR}`, `${VAR:-default}` and `${file:/abs/path}` in every string of a parsed
 * config. `${file:…}` reads a secret from a file (a Kubernetes secret mount, a Docker secret),
 * so it never has to sit in the service's environment, where any process the service starts
 * could read it from /proc; one trailing newline is dropped. A missing variable or unreadable
 * file is an issue naming the key, never an empty string. Every value taken from the
 * environment or a file is added to `secrets` so logs and errors can redact it.
 */
export function expandEnv(value: unknown, env: NodeJS.ProcessEnv, issues: ConfigIssue[], secrets: Set<string>, pointer = ""): unknown {
  if (typeof value === "string") return expandString(value, env, issues, secrets, pointer);
  if (Array.isArray(value)) return value.map((v, i) => expandEnv(v, env, issues, secrets, `${pointer}/${i}`));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = expandEnv(v, env, issues, secrets, `${pointer}/${escape(k)}`);
    return out;
  }
  return value;
}

function expandString(s: string, env: NodeJS.ProcessEnv, issues: ConfigIssue[], secrets: Set<string>, pointer: string): string {
  return s.replace(VAR, (_m, file: string | undefined, name: string, fallback: string | undefined) => {
    if (file !== undefined) return readSecretFile(file, issues, secrets, pointer);
    const v = env[name];
    if (v !== undefined && v !== "") {
      secrets.add(v);
      return v;
    }
    if (fallback !== undefined) return fallback;
    issues.push({ pointer, message: `environment variable ${name} is not set` });
    return "";
  });
}

function readSecretFile(file: string, issues: ConfigIssue[], secrets: Set<string>, pointer: string): string {
  if (!path.isAbsolute(file)) {
    issues.push({ pointer, message: `\${file:${file}} needs an absolute path` });
    return "";
  }
  try {
    const v = readFileSync(file, "utf8").replace(/\r?\n$/, "");
    if (v !== "") secrets.add(v);
    return v;
  } catch (err) {
    issues.push({ pointer, message: `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? "error"})` });
    return "";
  }
}

function escape(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}
